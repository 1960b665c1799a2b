// Program.oversight through the gateway (issue 34, item 6): what each persona may see and do on the oversight screen,
// from the permissions the API checks for each part (program.twins.read, program.twins.manage, program.audit.read),
// and the parts themselves answer the same way.
import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

const stack = useStack()
const ACCESS = `query($id: ID!) { program(id: $id) { oversight { viewerCanReadTwins viewerCanManageTwins viewerCanReadAudit viewerCanOversee } } }`

describe('Program.oversight', () => {
  it('gives owners and leads every part, a quality reviewer the reading parts, and scientists and viewers none', async () => {
    const t = await createTenant(stack.db.db, 'Oversight access')
    const url = `${stack.current.gatewayUrl}/graphql`
    const flags = async (p: Parameters<typeof t.token>[0]) => (await gql(url, ACCESS, { id: t.program.id }, await t.token(p))).body.data.program.oversight
    const all = { viewerCanReadTwins: true, viewerCanManageTwins: true, viewerCanReadAudit: true, viewerCanOversee: true }
    expect(await flags('program_owner')).toEqual(all)
    expect(await flags('program_lead')).toEqual(all)
    expect(await flags('quality_reviewer')).toEqual({ viewerCanReadTwins: true, viewerCanManageTwins: false, viewerCanReadAudit: true, viewerCanOversee: true })
    const none = { viewerCanReadTwins: false, viewerCanManageTwins: false, viewerCanReadAudit: false, viewerCanOversee: false }
    expect(await flags('scientist')).toEqual(none)
    expect(await flags('viewer')).toEqual(none)
    // The flags say what the queries do: the board answers the quality reviewer and refuses the scientist.
    const board = `query($id: ID!) { board(programId: $id, first: 5) { nodes { kind } } }`
    expect((await gql(url, board, { id: t.program.id }, await t.token('quality_reviewer'))).body.errors).toBeUndefined()
    expect((await gql(url, board, { id: t.program.id }, await t.token('scientist'))).body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN' })
  })
})
