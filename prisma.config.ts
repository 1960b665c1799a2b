// Prisma CLI configuration: generate works offline; migrations run through prisma/migrate.ts (wasm engine).
import { defineConfig } from 'prisma/config'

// No network here: the CLI insists on a native schema-engine path for generate, which never runs it.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= '/bin/false'

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
})
