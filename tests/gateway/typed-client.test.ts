// The typed console clients (clients/console, and the web console in console/) are generated from the committed supergraph; they switch on typed errors.
import fs from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { GENERATED_FILE, generateClientTypes } from '../../clients/console/codegen'
import { createProgram, removeMember } from '../../clients/console/example'
import { readSupergraph } from '../../gateway/supergraph'
import { CONSOLE_GENERATED_FILE, generateConsoleTypes } from '../../console/codegen'
import { useStack } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

const stack = useStack()

describe('the typed console client', () => {
  it('is what the code generator makes of schema/supergraph.graphql today (run npm run schema when this fails)', async () => {
    expect(await fs.readFile(GENERATED_FILE, 'utf8')).toBe(await generateClientTypes(await readSupergraph()))
  })

  it("types the web console's operations (console/src/operations) as the generator makes them of the supergraph today (run npm run schema when this fails)", async () => {
    expect(await fs.readFile(CONSOLE_GENERATED_FILE, 'utf8')).toBe(await generateConsoleTypes(await readSupergraph()))
  })

  it('switches on the typed errors the gateway returns: SlugTaken, InvalidInput with every issue, LastOwner', async () => {
    const t = await createTenant(stack.db.db)
    const url = `${stack.current.gatewayUrl}/graphql`
    const token = await t.token('org_admin')
    expect(await createProgram(url, token, 'typed-client', 'Typed client')).toBe('Created Typed client (typed-client).')
    expect(await createProgram(url, token, 'typed-client', 'Again')).toBe('input.slug: A program with the slug typed-client exists already.')
    expect(await createProgram(url, token, 'Bad Slug!', ' ')).toBe('input.slug: use 2 to 63 lower-case letters, digits and hyphens\ninput.name: a name is required')
    const owner = await t.token('program_owner')
    expect(await removeMember(url, owner, t.program.id, t.users.program_owner.id)).toBe('last_owner: A program keeps at least one program owner.')
  })
})
