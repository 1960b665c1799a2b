// Stage gates in real Chromium over the real stack: a lead follows a gate's card as its required records are decided
// (created and decided the way tests/twins/stage-gates.test.ts does, through the gateway), '<N> of <M> required records
// present' moving without a reload; marks it ready; the quality reviewer signs the review and the lead closes it, each
// reading the signature's meaning first; the closed footer as specified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { gateClosedBy, requiredRecordsPresent } from '../../core/text'

const stack = useStack()
const PROGRAM = ILLUSTRATIVE.program.name
let tenant: Tenant
let browser: Browser
let liam: ConsolePerson
let quinn: ConsolePerson
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? '/tmp/console-screenshots'
const gateway = () => `${stack.current.gatewayUrl}/graphql`
const today = () => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' }).format(new Date())

beforeAll(async () => {
  const db = stack.db.db
  const seed = await seedIllustrative(db)
  await seedIllustrativeTwins(db, seed)
  tenant = illustrativeTenant(seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await liam?.close()
  await quinn?.close()
  await browser?.close()
})


async function call(persona: Parameters<Tenant['token']>[0], query: string, variables: Record<string, unknown>) {
  const r = await gql(gateway(), query, variables, await tenant.token(persona))
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors))
  return r.body.data
}
const finding = async (title: string) => (await call('program_owner', `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ... on MutationCreateRecordSuccess { record { id } } } }`,
  { i: { programId: tenant.program.id, recordType: 'evidence.findings', title, fields: { kind: 'result', species: 'rat', dose_mg_per_kg: 30 } } })).createRecord.record.id as string
const confirm = (id: string) => call('program_owner', `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { __typename } }`, { i: { id, outcome: 'confirm' } })

let records: string[] = []
let target: { id: string; name: string }
/** The program's current stage (its first when none) and the one after it. */
async function stagesNow() {
  const stages = await stack.db.db.programStage.findMany({ where: { programId: tenant.program.id }, orderBy: { position: 'asc' } })
  const current = (await stack.db.db.program.findUniqueOrThrow({ where: { id: tenant.program.id } })).currentStageId
  const i = Math.max(0, stages.findIndex((st) => st.id === current))
  target = stages[i + 1]
  return { from: stages[i], to: stages[i + 1] }
}
let gateId = ''
const card = (p: ConsolePerson) => p.page.locator(`[data-gate="${gateId}"]`)
const count = (p: ConsolePerson) => card(p).getByTestId('gate-count')

describe('stage gates in the console', { timeout: 60_000 }, () => {
  it("follows a gate's card as its required records are decided, without reloading", async () => {
    const { from, to } = await stagesNow()
    records = [await finding('Rat liver weights, day 28'), await finding('Dog QT at 30 mg/kg')]
    const requiredRecords = records.map((recordId) => ({ kind: 'decided_record', recordType: 'evidence.findings', recordId }))
    // The program's gate for its current stage, opened afresh (or, when the database already holds one, superseded by
    // a version requiring these records).
    const live = await stack.db.db.stageGate.findFirst({ where: { programId: tenant.program.id, stageId: from.id, status: { not: 'closed' } } })
    if (live) {
      const d = await call('program_lead', `mutation($id: ID!, $r: [RequiredRecordInput!]) { supersedeStageGate(id: $id, reason: "new evidence", requiredRecords: $r) { __typename } }`, { id: live.id, r: requiredRecords })
      expect(d.supersedeStageGate.__typename).toBe('MutationSupersedeStageGateSuccess')
    } else {
      const d = await call('program_lead', `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { __typename } }`,
        { i: { programId: tenant.program.id, stageId: from.id, nextStageId: to.id, requiredRecords } })
      expect(d.openStageGate.__typename).toBe('MutationOpenStageGateSuccess')
    }
    gateId = (await stack.db.db.stageGate.findFirstOrThrow({ where: { programId: tenant.program.id, stageId: from.id, status: 'open' } })).id

    liam = await openConsoleAs(browser, stack.current.gatewayUrl, 'Liam Lead')
    await openProgramHome(liam.page, PROGRAM)
    await liam.page.getByRole('link', { name: 'Stage gates', exact: true }).click()
    await liam.page.getByRole('heading', { level: 1, name: 'Stage gates' }).waitFor()
    expect(new URL(liam.page.url()).pathname).toBe('/p/illustrative-program/stage-gates')
    await card(liam).getByRole('heading', { level: 2, name: `${from.name} to ${to.name}` }).waitFor()
    await expect.poll(() => count(liam).innerText()).toBe(requiredRecordsPresent(0, 2))

    const navigations: string[] = []
    liam.page.on('framenavigated', (f) => { if (f === liam.page.mainFrame()) navigations.push(f.url()) })
    await confirm(records[0])
    await expect.poll(() => count(liam).innerText(), { timeout: 10_000 }).toBe(requiredRecordsPresent(1, 2))
    await confirm(records[1])
    await expect.poll(() => count(liam).innerText(), { timeout: 10_000 }).toBe(requiredRecordsPresent(2, 2))
    expect(navigations).toEqual([]) // moved over graphql-ws, no reload
    expect(await plumbingIn(liam.page)).toEqual([])
    await liam.page.screenshot({ path: `${SCREENSHOTS}/stage-gates-1440.png`, fullPage: true })
  })

  it('marks the gate ready, and the quality reviewer signs the review with its meaning shown first', async () => {
    await card(liam).getByRole('button', { name: 'Mark ready for review', exact: true }).click()
    await card(liam).getByText(/^Ready for review/).waitFor({ timeout: 10_000 })

    quinn = await openConsoleAs(browser, stack.current.gatewayUrl, 'Quinn Quality')
    await quinn.page.goto(`${stack.current.gatewayUrl}/p/illustrative-program/stage-gates`)
    await card(quinn).getByRole('button', { name: 'Review and sign', exact: true }).click()
    const meaning = card(quinn).getByTestId('signature-meaning')
    expect(await meaning.innerText()).toMatch(/^Your signature means: reviewed\./)
    await card(quinn).getByLabel('Comment (optional)').fill('Both findings read against the raw data.')
    await card(quinn).getByRole('button', { name: 'Sign the review', exact: true }).click()
    await card(quinn).getByText(/^Reviewed by Quinn Quality on /).waitFor({ timeout: 10_000 })
    const sig = await stack.db.db.signature.findFirstOrThrow({ where: { targetType: 'stage_gate' }, orderBy: { signedAt: 'desc' } })
    expect(sig.meaning).toBe('review')
  })

  it('closes it with the approval signature, its meaning naming the next stage, and reads the closed footer as specified', async () => {
    // The lead's page moved to 'reviewed' on its own (the live topic carries status changes too).
    const closeButton = card(liam).getByRole('button', { name: 'Close and sign', exact: true })
    await closeButton.waitFor({ timeout: 10_000 })
    await closeButton.focus()
    await liam.page.keyboard.press('Enter')
    expect(await card(liam).getByTestId('signature-meaning').innerText()).toBe(`Your signature means: approved. You approve closing this gate and moving the program to ${target.name}.`)
    await card(liam).getByRole('button', { name: 'Sign and close', exact: true }).click()
    const footer = card(liam).getByTestId('gate-footer')
    await footer.waitFor({ timeout: 10_000 })
    expect(await footer.innerText()).toMatch(new RegExp(`^${gateClosedBy('Quinn Quality', 'Liam Lead').replace(/[()]/g, '\\$&')}, ${today()}$`))
    expect((await stack.db.db.program.findUniqueOrThrow({ where: { id: tenant.program.id } })).currentStageId).toBe(target.id)
    await liam.page.getByText(`now in ${target.name}`).waitFor()
    expect(await plumbingIn(liam.page)).toEqual([])
  })

  it('fits a 390 px wide screen without horizontal scrolling, with no console error and no popup', async () => {
    const page = liam.page
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload()
    await card(liam).getByTestId('gate-footer').waitFor()
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/stage-gates-390.png`, fullPage: true })
    for (const person of [liam, quinn]) {
      expect(person.watch.pageErrors).toEqual([])
      expect(person.watch.consoleErrors).toEqual([])
      expect(person.watch.foreignRequests).toEqual([])
      expect(person.dialogs).toEqual([])
    }
  })
})
