// npm run schema: prints each subgraph's SDL to schema/<name>.graphql and composes schema/supergraph.graphql.
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildSchemaArtifacts, SCHEMA_DIR } from '../gateway/supergraph'

const files = buildSchemaArtifacts()
await fs.mkdir(SCHEMA_DIR, { recursive: true })
for (const [name, content] of Object.entries(files)) {
  await fs.writeFile(path.join(SCHEMA_DIR, name), content)
  console.log(`schema/${name} (${content.split('\n').length} lines)`)
}
