// vitest for the test files of the pure rules that the mutation run mutates (sanitiser and redaction, state machines,
// edge limits, footers, the webhook signature, the skills' computations): no database, no server but a node:http one
// on port 0, no browser. The mutation run
// (stryker.config.mjs) uses it: no global database setup, so each mutant's tests start in a second, not a minute.
// The main config (vitest.config.ts) runs these files too, as part of `npm test`.
import { defineConfig } from 'vitest/config'

export const PURE_TESTS = [
  'tests/memory/sanitiser.test.ts',
  'tests/memory/sanitiser-patterns.test.ts',
  'tests/memory/sanitiser-passes.test.ts',
  'tests/memory/redaction.test.ts',
  'tests/platform/state-machine-rules.test.ts',
  'tests/gateway/edge-limit-rules.test.ts',
  'tests/platform/footers.test.ts',
  'tests/notebook/webhook-signature-rules.test.ts',
  'tests/skills/nca-golden.test.ts',
  'tests/skills/pk-parameter-extraction.test.ts',
  'tests/skills/fih-dose-projection.test.ts',
  'tests/skills/exposure-margin-table.test.ts',
  'tests/skills/unattended.test.ts',
  'tests/skills/determinism.test.ts',
  'tests/skills/golden-results.test.ts',
  'tests/skills/numbers.test.ts',
]

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: PURE_TESTS,
    // No setup files: the domain's installation (tests/setup/domain.ts) loads every subgraph, which these rules never need.
    testTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
  },
})
