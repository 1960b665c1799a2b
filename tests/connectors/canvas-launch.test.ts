// The notebook canvas: the prompt rendered through the vendor's canvas API, a click that creates a one-time launch id
// and offers 'Open in the service', opening it once through the gateway, expiry, and the sweeps of the daily jobs.
import { beforeAll, describe, expect, it } from 'vitest'
import { gql } from '../helpers/stack'
import { createTenant, createTwoOrganizations, type Tenant } from '../helpers/factories'
import { CONNECTORS } from '../../core/text'
import { CHECK_BUTTON_ID } from '../../domain/notebook'
import { launchUrlFor } from '../../domain/adapters'
import { sampleEntry, useNotebookStack, type ConnectedNotebook } from './helpers'

const { stack, fake, db, work, connect } = useNotebookStack()
let tenant: Tenant
let nb: ConnectedNotebook
beforeAll(async () => {
  tenant = await createTenant(db(), 'Canvas')
  nb = await connect(tenant)
})

const send = (on: ConnectedNotebook, event: Record<string, unknown> & { type: string }) => on.send(event)
const OPEN = `mutation($id: ID!) { openLaunch(launchId: $id) { __typename
  ... on MutationOpenLaunchSuccess { target { launchId entryId entryName sourceSystem sourceId experimentId targetRef program { id name } } }
  ... on Error { code message } } }`

/** A canvas the user added in an entry, as the vendor holds it before the app renders it. */
function vendorCanvas(on: ConnectedNotebook, entryId: string) {
  const id = `cnvs_${Math.random().toString(36).slice(2, 10)}`
  fake.control.canvases.set(id, {
    id, appId: on.app.appId, featureId: on.app.featureId, resourceId: entryId, blocks: [], enabled: true, sessionId: null, data: null, archiveRecord: null, illustrative: true,
  })
  return id
}

async function clickedLaunch(entryId: string) {
  sampleEntry(fake, entryId)
  const canvasId = vendorCanvas(nb, entryId)
  const r = await send(nb, { type: 'v2.canvas.userInteracted', canvasId, buttonId: CHECK_BUTTON_ID, userId: 'ent_illustrative_user' })
  expect(r.status).toBe(202)
  await work()
  const launch = await db().launchId.findFirstOrThrow({ where: { canvasId } })
  return { canvasId, launch, deliveryId: r.deliveryId }
}

describe('notebook canvas and launch', () => {
  it("renders the prompt 'Check this entry against the effective SOP' on a canvas initialized in an entry", async () => {
    sampleEntry(fake, 'etr_canvas_init')
    const r = await send(nb, { type: 'v2.canvas.initialized', featureId: nb.app.featureId, resourceId: 'etr_canvas_init' })
    expect(r.status).toBe(202)
    await work()
    const canvas = fake.control.canvasList().find((c) => c.resourceId === 'etr_canvas_init')!
    expect(canvas.blocks).toEqual([{ type: 'BUTTON', id: CHECK_BUTTON_ID, text: CONNECTORS.checkAgainstEffectiveSop }])
    expect(JSON.parse(canvas.data!)).toMatchObject({ connection: nb.connection.id, entry: 'etr_canvas_init' })
    expect((await db().webhookDelivery.findFirstOrThrow({ where: { deliveryId: r.deliveryId } })).processingResult).toBe('canvas_rendered')
    // The entry itself was brought in on the way.
    expect(await db().connectorObject.count({ where: { connectionId: nb.connection.id, externalId: 'etr_canvas_init' } })).toBe(1)
  })

  it('renders the prompt on a canvas created in the notebook', async () => {
    sampleEntry(fake, 'etr_canvas_created')
    const canvasId = vendorCanvas(nb, 'etr_canvas_created')
    await send(nb, { type: 'v2.canvas.created', canvasId })
    await work()
    expect(fake.control.canvases.get(canvasId)!.blocks).toEqual([{ type: 'BUTTON', id: CHECK_BUTTON_ID, text: CONNECTORS.checkAgainstEffectiveSop }])
  })

  it("creates a one-time launch id on a click, offers 'Open in the service', and opens the entry and program once", async () => {
    const { canvasId, launch, deliveryId } = await clickedLaunch('etr_launch_once')
    expect(launch.expiresAt.getTime() - launch.createdAt.getTime()).toBe(10 * 60_000)
    expect(launch).toMatchObject({ connectionId: nb.connection.id, programId: tenant.program.id, entryExternalId: 'etr_launch_once', usedAt: null, notebookUserId: 'ent_illustrative_user' })
    const blocks = fake.control.canvases.get(canvasId)!.blocks as Array<{ type: string; value?: string }>
    expect(blocks[1].value).toBe(`[${CONNECTORS.openInTheService}](${launchUrlFor(launch.id)})`)
    expect((await db().webhookDelivery.findFirstOrThrow({ where: { deliveryId } })).processingResult).toBe('launch_created')

    const token = await tenant.token('scientist')
    const opened = await gql(`${stack.current.gatewayUrl}/graphql`, OPEN, { id: launch.id }, token)
    expect(opened.body.errors).toBeUndefined()
    const source = await db().source.findFirstOrThrow({ where: { connectionId: nb.connection.id, externalId: 'etr_launch_once' } })
    expect(opened.body.data.openLaunch.target).toMatchObject({
      launchId: launch.id, entryId: 'etr_launch_once', sourceSystem: 'eln_provider', sourceId: source.id, targetRef: source.targetRef,
      entryName: source.title, program: { id: tenant.program.id, name: tenant.program.name },
    })
    expect(opened.body.data.openLaunch.target.experimentId).toBeTruthy()
    const second = await gql(`${stack.current.gatewayUrl}/graphql`, OPEN, { id: launch.id }, token)
    expect(second.body.data.openLaunch).toMatchObject({ __typename: 'LaunchUsed', code: 'launch_used' })
    expect((await db().launchId.findUniqueOrThrow({ where: { id: launch.id } })).usedByUserId).toBe(tenant.users.scientist.id)
  })

  it('refuses a launch opened after its 10 minutes with launch_expired', async () => {
    const { launch } = await clickedLaunch('etr_launch_expired')
    await db().launchId.update({ where: { id: launch.id }, data: { createdAt: new Date(Date.now() - 11 * 60_000), expiresAt: new Date(Date.now() - 60_000) } })
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, OPEN, { id: launch.id }, await tenant.token('program_lead'))
    expect(r.body.data.openLaunch).toMatchObject({ __typename: 'LaunchExpired', code: 'launch_expired' })
    expect((await db().launchId.findUniqueOrThrow({ where: { id: launch.id } })).usedAt).toBeNull()
  })

  it("answers launch_not_found for another organisation's launch and for an unknown id", async () => {
    const { launch } = await clickedLaunch('etr_launch_foreign')
    const { b } = await createTwoOrganizations(db())
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, OPEN, { id: launch.id }, await b.token('program_owner'))
    expect(r.body.data.openLaunch).toMatchObject({ code: 'launch_not_found' })
    const unknown = await gql(`${stack.current.gatewayUrl}/graphql`, OPEN, { id: 'nope' }, await b.token('program_owner'))
    expect(unknown.body.data.openLaunch).toMatchObject({ code: 'launch_not_found' })
    expect((await db().launchId.findUniqueOrThrow({ where: { id: launch.id } })).usedAt).toBeNull()
  })

  it('ignores a click on any other button', async () => {
    sampleEntry(fake, 'etr_other_button')
    const canvasId = vendorCanvas(nb, 'etr_other_button')
    const r = await send(nb, { type: 'v2.canvas.userInteracted', canvasId, buttonId: 'someone_elses_button' })
    await work()
    expect((await db().webhookDelivery.findFirstOrThrow({ where: { deliveryId: r.deliveryId } })).processingResult).toBe('ignored_button')
    expect(await db().launchId.count({ where: { canvasId } })).toBe(0)
  })

  it('sweeps launch ids 24 h after expiry, and keeps deliveries 90 days and rejected ones 30 days', async () => {
    const { launch } = await clickedLaunch('etr_sweep')
    const fresh = (await clickedLaunch('etr_sweep_fresh')).launch
    const day = 24 * 60 * 60_000
    await db().launchId.update({ where: { id: launch.id }, data: { createdAt: new Date(Date.now() - day - 20 * 60_000), expiresAt: new Date(Date.now() - day - 10 * 60_000) } })
    const base = { organizationId: tenant.organization.id, programId: tenant.program.id, connectionId: nb.connection.id, providerId: 'eln_provider', sourceAddress: '192.0.2.1', bodyBytes: 10, statusCode: 202 }
    const ago = (days: number) => new Date(Date.now() - days * day)
    const rows = await Promise.all([
      db().webhookDelivery.create({ data: { ...base, signatureOk: true, outcome: 'enqueued', receivedAt: ago(89) } }),
      db().webhookDelivery.create({ data: { ...base, signatureOk: true, outcome: 'enqueued', receivedAt: ago(91) } }),
      db().webhookDelivery.create({ data: { ...base, signatureOk: false, outcome: 'rejected', statusCode: 401, receivedAt: ago(29) } }),
      db().webhookDelivery.create({ data: { ...base, signatureOk: false, outcome: 'rejected', statusCode: 401, receivedAt: ago(31) } }),
    ])
    await db().$executeRaw`SELECT graphile_worker.add_job('launch_ids_sweep', '{}'::json)`
    await db().$executeRaw`SELECT graphile_worker.add_job('webhook_retention', '{}'::json)`
    await work()
    expect(await db().launchId.findUnique({ where: { id: launch.id } })).toBeNull()
    expect(await db().launchId.findUnique({ where: { id: fresh.id } })).not.toBeNull()
    const kept = await db().webhookDelivery.findMany({ where: { id: { in: rows.map((r) => r.id) } } })
    expect(kept.map((r) => r.id).sort()).toEqual([rows[0].id, rows[2].id].sort())
  })
})
