// Owns the web console's typed documents: every console/src/operations/*.graphql file (in name order) through the one
// generator (clients/console/codegen.ts) into console/src/generated/graphql.ts. npm run schema writes it; a test fails
// when it is stale.
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateTypedDocuments } from '../clients/console/codegen'
import { manifestOf } from '../core/http'

const HERE = path.dirname(fileURLToPath(import.meta.url))
export const CONSOLE_OPERATIONS_DIR = path.join(HERE, 'src', 'operations')
export const CONSOLE_GENERATED_FILE = path.join(HERE, 'src', 'generated', 'graphql.ts')

export async function consoleOperations(): Promise<string> {
  const files = (await fs.readdir(CONSOLE_OPERATIONS_DIR)).filter((f) => f.endsWith('.graphql')).sort()
  const texts = await Promise.all(files.map((f) => fs.readFile(path.join(CONSOLE_OPERATIONS_DIR, f), 'utf8')))
  return texts.join('\n')
}

/** Where the console's operations are registered (trusted documents: hash → canonical document, core/http/trusted-documents.ts). */
export const TRUSTED_DOCUMENTS_FILE = path.join(HERE, 'src', 'generated', 'trusted-documents.json')

/** The manifest's text: every console operation with the fragments it uses, by hash (npm run schema writes it). */
export async function generateTrustedDocuments(): Promise<string> {
  return `${JSON.stringify(manifestOf(await consoleOperations()), null, 2)}\n`
}

export async function generateConsoleTypes(supergraphSdl: string): Promise<string> {
  return generateTypedDocuments(supergraphSdl, await consoleOperations(), 'console/src/operations/*.graphql', CONSOLE_GENERATED_FILE)
}
