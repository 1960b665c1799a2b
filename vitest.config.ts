// vitest: one graphql instance for ESM and CommonJS packages; real PostgreSQL through tests/global-setup.ts; every file
// fails when it leaves a server, worker or database connection running (tests/setup/leak-guard.ts); every file's process
// installs the domain first, as each entry point does (tests/setup/domain.ts).
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // graphql@16 ships index.mjs and index.js without "exports": Vite would load the .mjs copy while CommonJS
  // Apollo packages require() the .js copy ("Cannot use GraphQLSchema from another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    setupFiles: ['tests/setup/leak-guard.ts', 'tests/setup/domain.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits up to 10 s (vitest's default is 1 s): a click's round trip in the console tests took longer than
    // a second on a loaded 2-core machine and failed a test that passes in 3.5 s alone. A poll that succeeds returns at once.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    maxWorkers: 2,
  },
})
