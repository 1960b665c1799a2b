// npm run schema: prints each subgraph's SDL to schema/<name>.graphql and composes schema/supergraph.graphql.
import fs from 'node:fs/promises'
import path from 'node:path'
import { SCHEMA_DIR } from '../core/config'
import { buildSchemaArtifacts } from '../subgraphs/supergraph'
import { GENERATED_FILE, generateClientTypes } from '../clients/console/codegen'
import { CONSOLE_GENERATED_FILE, generateConsoleTypes, generateTrustedDocuments, TRUSTED_DOCUMENTS_FILE } from '../console/codegen'
import { writeClientPackage } from '../clients/generate'

const files = buildSchemaArtifacts()
await fs.mkdir(SCHEMA_DIR, { recursive: true })
for (const [name, content] of Object.entries(files)) {
  await fs.writeFile(path.join(SCHEMA_DIR, name), content)
  console.log(`schema/${name} (${content.split('\n').length} lines)`)
}
// The typed console client follows the supergraph it was just composed from.
await fs.writeFile(GENERATED_FILE, await generateClientTypes(files['supergraph.graphql']))
console.log(`${path.relative(process.cwd(), GENERATED_FILE)} (typed client)`)
await fs.writeFile(CONSOLE_GENERATED_FILE, await generateConsoleTypes(files['supergraph.graphql']))
console.log(`${path.relative(process.cwd(), CONSOLE_GENERATED_FILE)} (the web console's typed documents)`)
// The console's operations registered as trusted documents (hash → document) for the gateway.
await fs.writeFile(TRUSTED_DOCUMENTS_FILE, await generateTrustedDocuments())
console.log(`${path.relative(process.cwd(), TRUSTED_DOCUMENTS_FILE)} (the console's trusted documents)`)
// The client package (clients/, @evidence-workspace/client): schema, types, typed documents, possibleTypes.
for (const file of await writeClientPackage(files['supergraph.graphql'])) console.log(`${file} (the client package)`)
