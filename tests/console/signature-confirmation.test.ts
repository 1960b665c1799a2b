// In development there is no identity provider to ask for a fresh sign-in before a signature: the console asks the
// person to confirm who they are instead, which mints a fresh development token, and the signature stores when that
// was. Real Chromium over the real stack, signed in through the development sign-in page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { seedIllustrative } from '../../subgraphs/seed'
import { mintDevToken } from '../../core/identity'

const stack = useStack()
let tenant: Tenant
let browser: Browser
let quinn: ConsolePerson
let gateId = ''
const gateway = () => `${stack.current.gatewayUrl}/graphql`

async function call(persona: Parameters<Tenant['token']>[0], query: string, variables: Record<string, unknown>) {
  const r = await gql(gateway(), query, variables, await tenant.token(persona))
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors))
  return r.body.data
}

beforeAll(async () => {
  const db = stack.db.db
  tenant = illustrativeTenant(await seedIllustrative(db))
  // a ready gate for the program's current stage: one finding required and confirmed
  const created = await call('program_owner', `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ... on MutationCreateRecordSuccess { record { id } } } }`,
    { i: { programId: tenant.program.id, recordType: 'evidence.findings', title: 'Dog QT at 30 mg/kg', fields: { kind: 'result', species: 'dog', dose_mg_per_kg: 30 } } })
  const recordId = created.createRecord.record.id as string
  await call('program_owner', `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { __typename } }`, { i: { id: recordId, outcome: 'confirm' } })
  const stages = await db.programStage.findMany({ where: { programId: tenant.program.id }, orderBy: { position: 'asc' } })
  const current = (await db.program.findUniqueOrThrow({ where: { id: tenant.program.id } })).currentStageId
  const i = Math.max(0, stages.findIndex((s) => s.id === current))
  const requiredRecords = [{ kind: 'decided_record', recordType: 'evidence.findings', recordId }]
  const live = await db.stageGate.findFirst({ where: { programId: tenant.program.id, stageId: stages[i].id, status: { not: 'closed' } } })
  if (live) await call('program_lead', `mutation($id: ID!, $r: [RequiredRecordInput!]) { supersedeStageGate(id: $id, reason: "new evidence", requiredRecords: $r) { __typename } }`, { id: live.id, r: requiredRecords })
  else await call('program_lead', `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { __typename } }`, { i: { programId: tenant.program.id, stageId: stages[i].id, nextStageId: stages[i + 1].id, requiredRecords } })
  gateId = (await db.stageGate.findFirstOrThrow({ where: { programId: tenant.program.id, stageId: stages[i].id, status: 'open' } })).id
  const ready = await call('program_lead', `mutation($id: ID!) { markStageGateReady(id: $id) { __typename } }`, { id: gateId })
  expect(ready.markStageGateReady.__typename).toBe('MutationMarkStageGateReadySuccess')
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await quinn?.close()
  await browser?.close()
})

describe('a signature in development', { timeout: 60_000 }, () => {
  it('asks the person to confirm who they are when their sign-in is old, then signs with the time of that confirmation', async () => {
    quinn = await openConsoleAs(browser, stack.current.gatewayUrl, 'Quinn Quality')
    // the tab's sign-in is made an hour old: the development token the sign-in page would have minted then
    const old = await mintDevToken(tenant.users.quality_reviewer, '12h', { authTime: new Date(Date.now() - 3600_000) })
    await quinn.page.evaluate((token) => {
      const w = globalThis as any
      const session = JSON.parse(w.sessionStorage.getItem('console:session'))
      w.sessionStorage.setItem('console:session', JSON.stringify({ ...session, token, authTime: Math.floor(Date.now() / 1000) - 3600 }))
    }, old)
    await quinn.page.goto(`${stack.current.gatewayUrl}/p/illustrative-program/stage-gates`)
    const card = quinn.page.locator(`[data-gate="${gateId}"]`)
    await card.getByRole('button', { name: 'Review and sign', exact: true }).click()
    expect(await card.getByTestId('fresh-sign-in').innerText()).toBe('A signature needs you to confirm who you are. Development has no identity provider, so confirming signs you in again.')
    expect(await card.getByRole('button', { name: 'Sign the review', exact: true }).count()).toBe(0)
    await card.getByLabel('Comment (optional)').fill('Read against the raw ECG data.')

    const confirmedAfter = Math.floor(Date.now() / 1000)
    await card.getByRole('button', { name: 'Confirm it is me', exact: true }).click()
    await card.getByRole('button', { name: 'Sign the review', exact: true }).click()
    await card.getByText(/^Reviewed by Quinn Quality on /).waitFor({ timeout: 10_000 })
    const signature = await stack.db.db.signature.findFirstOrThrow({ where: { targetType: 'stage_gate', targetId: gateId } })
    expect(signature.signerUserId).toBe(tenant.users.quality_reviewer.id)
    expect(signature.authenticatedAt!.getTime()).toBeGreaterThanOrEqual(confirmedAfter * 1000)
    expect(quinn.dialogs).toEqual([]) // confirmed in the page, never a browser dialog
  })
})
