// A console call typed by the generated client: it switches on the typed errors of a mutation's result union, and
// `npm run typecheck` fails if the schema stops returning one of them or adds one the switch does not handle.
import { print } from 'graphql'
import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { CreateProgramDocument, RemoveProgramMemberDocument, type CreateProgramMutation } from './generated'

export async function request<R, V>(url: string, token: string, document: TypedDocumentNode<R, V>, variables: V): Promise<R> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: print(document), variables }),
  })
  const body = (await res.json()) as { data?: R; errors?: { message: string }[] }
  if (!body.data) throw new Error(body.errors?.map((e) => e.message).join('; ') ?? `HTTP ${res.status}`)
  return body.data
}

/** What the console shows after "Create program": every member of the result union is handled, none forgotten. */
export function createProgramOutcome(result: CreateProgramMutation['createProgram']): string {
  // Null when the call was refused at the top level (FORBIDDEN, UNAUTHENTICATED): `request` reports those.
  if (!result) return 'Refused.'
  switch (result.__typename) {
    case 'MutationCreateProgramSuccess':
      return `Created ${result.program.name} (${result.program.slug}).`
    case 'SlugTaken':
      return `${result.field ?? 'slug'}: ${result.message}`
    case 'InvalidInput':
      return result.issues.map((i) => `${i.field ?? 'input'}: ${i.message}`).join('\n')
    default: {
      const unhandled: never = result
      return unhandled
    }
  }
}

export async function createProgram(url: string, token: string, slug: string, name: string): Promise<string> {
  const data = await request(url, token, CreateProgramDocument, { input: { slug, name } })
  return createProgramOutcome(data.createProgram)
}

/** Removing a member: a generic Error branch is enough where the console only shows the message. */
export async function removeMember(url: string, token: string, programId: string, userId: string): Promise<string> {
  const { removeProgramMember: r } = await request(url, token, RemoveProgramMemberDocument, { programId, userId })
  if (!r) return 'Refused.'
  return r.__typename === 'MutationRemoveProgramMemberSuccess' ? 'Removed.' : `${r.code}: ${r.message}`
}
