// The console's main journey in real Chromium over the real stack: the demo's twin files a decision through the tool
// server; the person sees it arrive without reloading, approves it, and reads the record's footer as specified; a
// second person, in another browser context, sees only their own inbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { FIXED_PHRASES, TWINS, WORKBENCH } from '../../core/text'
import { sweepInbox } from '../../domain/inbox'
import { connect, runningRun, writeRecord } from '../twins/tools-helpers'

const stack = useStack()
const PROGRAM = ILLUSTRATIVE.program.name
let tenant: Tenant
let browser: Browser
let sofia: ConsolePerson
let liam: ConsolePerson
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? '/tmp/console-screenshots'
/** A reviewer's note in scientific notation: kept and shown exactly. */
const NOTE = 'Conc <LLOQ at 24 h; dose <5 mg/kg & AUC>100 µg·h/mL; Cmax ≤ 2'

beforeAll(async () => {
  const db = stack.db.db
  const seed = await seedIllustrative(db)
  await seedIllustrativeTwins(db, seed)
  tenant = illustrativeTenant(seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await sofia?.close()
  await liam?.close()
  await browser?.close()
})

/**
 * The twin of `persona` files one finding proposal over MCP, as a twin run does: a new finding (with `body` when
 * given), or with `update`, a change of the title of its basis record.
 */
async function twinProposes(persona: 'scientist', title: string, opts: { body?: string; update?: boolean } = {}) {
  const run = await runningRun(stack.db.db, tenant, persona)
  const basis = await writeRecord(stack.db.db, tenant, persona, { recordType: 'evidence.findings', title: `Basis for ${title}`, fields: { kind: 'observation', species: 'rat' } })
  const client = await connect(stack.current.toolsUrl, run)
  try {
    const change = opts.update
      ? { kind: 'update', recordId: basis.id, title }
      : { kind: 'create', title, fields: { kind: 'interpretation' }, ...(opts.body ? { body: opts.body } : {}) }
    const res = await client.call<{ proposalId: string; inboxItemId: string }>('evidence.propose_finding', {
      change, basisRecordIds: [basis.id], draft: `The twin's reading: ${title}.`,
    }, { duty: 'blocker_scan' })
    expect(res.ok).toBe(true)
    return { basis, ...(res as { value: { proposalId: string; inboxItemId: string } }).value }
  } finally {
    await client.close()
  }
}

const gateway = () => `${stack.current.gatewayUrl}/graphql`

describe('the console journey', () => {
  it("signs two people in, each in their own browser, and shows each one's role home with the four regions in order", async () => {
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    liam = await openConsoleAs(browser, stack.current.gatewayUrl, 'Liam Lead')
    for (const person of [sofia, liam]) {
      await openProgramHome(person.page, PROGRAM)
      expect(person.page.url()).toMatch(/\/p\/illustrative-program\/home$/)
      expect(await person.page.locator('section.region > h2').allInnerTexts()).toEqual([...WORKBENCH.homeRegions])
      await person.page.getByRole('heading', { level: 3, name: FIXED_PHRASES.decisionsWaiting }).waitFor()
      await person.page.getByTestId('inbox-empty').waitFor()
    }
    await sofia.page.getByRole('button', { name: WORKBENCH.chooseYourWorkbenchRole }).waitFor()
    await sofia.page.screenshot({ path: `${SCREENSHOTS}/home-empty-1440.png`, fullPage: true })
  })

  it("shows the twin's decision without reloading: its draft marked agent-generated and its basis", async () => {
    const navigations: string[] = []
    sofia.page.on('framenavigated', (f) => { if (f === sofia.page.mainFrame()) navigations.push(f.url()) })
    await twinProposes('scientist', 'Liver signal needs a question')
    const card = sofia.page.getByTestId('proposal-card').filter({ hasText: 'Liver signal needs a question' })
    await card.waitFor({ timeout: 15_000 })
    expect(navigations).toEqual([]) // arrived over graphql-ws, no reload
    await expect.poll(() => card.getByText(FIXED_PHRASES.agentGeneratedDraft, { exact: true }).count()).toBe(1)
    await card.getByText('Basis for Liver signal needs a question').waitFor()
    expect(await plumbingIn(sofia.page)).toEqual([])
    await sofia.page.screenshot({ path: `${SCREENSHOTS}/home-proposal-1440.png`, fullPage: true })
  })

  it('approves it and reads the footer the specification fixes on the record written', async () => {
    const card = sofia.page.getByTestId('proposal-card').filter({ hasText: 'Liver signal needs a question' })
    await card.getByRole('button', { name: 'Approve', exact: true }).click()
    const footer = card.getByTestId('record-footer')
    await footer.waitFor({ timeout: 10_000 })
    const text = await footer.innerText()
    // "Proposed by <Name>'s twin (agent, working as <workbench role or persona name>); decided by <Name>"
    expect(text).toMatch(/^Proposed by Sofia Scientist's twin \(agent(, working as [^)]+)?\); decided by Sofia Scientist$/)
    const token = await tenant.token('scientist')
    const records = await gql(`${stack.current.gatewayUrl}/graphql`, '{ program(slug: "illustrative-program") { records(type: "evidence.findings", first: 5) { nodes { title footer } } } }', {}, token)
    const written = records.body.data.program.records.nodes.find((r: { title: string }) => r.title === 'Liver signal needs a question')
    expect(written.footer).toBe(text)
    expect(await plumbingIn(sofia.page)).toEqual([])
    await sofia.page.screenshot({ path: `${SCREENSHOTS}/home-decided-1440.png`, fullPage: true })
  })

  it("keeps the second person's inbox to their own: the lead never saw the scientist's decision", async () => {
    await liam.page.waitForTimeout(500)
    expect(await liam.page.getByTestId('proposal-card').count()).toBe(0)
    await liam.page.reload()
    await liam.page.getByRole('heading', { level: 3, name: FIXED_PHRASES.decisionsWaiting }).waitFor()
    await liam.page.getByTestId('inbox-empty').waitFor()
    expect(await liam.page.getByTestId('proposal-card').count()).toBe(0)
  })

  it("reads 'Changed since proposed' on a proposal whose basis changed, and offers no approval", async () => {
    const { basis } = await twinProposes('scientist', 'Second look at the liver weights')
    const card = sofia.page.getByTestId('proposal-card').filter({ hasText: 'Second look at the liver weights' })
    await card.waitFor({ timeout: 15_000 })
    const token = await tenant.token('scientist')
    const updated = await gql(`${stack.current.gatewayUrl}/graphql`, 'mutation($input: UpdateRecordInput!) { updateRecord(input: $input) { __typename } }', { input: { id: basis.id, title: 'Basis revised' } }, token)
    expect(updated.body.data.updateRecord.__typename).toMatch(/Success$/)
    await sofia.page.reload()
    await card.getByText(TWINS.changedSinceProposed, { exact: true }).waitFor({ timeout: 10_000 })
    expect(await card.getByRole('button', { name: 'Approve', exact: true }).isDisabled()).toBe(true)
    expect(await plumbingIn(sofia.page)).toEqual([])
  })

  it('approves with a note only, and reads the note exactly on the card and on the record page', async () => {
    const page = sofia.page
    await twinProposes('scientist', 'Exposure is below the LLOQ late')
    const card = page.getByTestId('proposal-card').filter({ hasText: 'Exposure is below the LLOQ late' })
    await card.waitFor({ timeout: 15_000 })
    await card.getByRole('button', { name: 'Approve with edits', exact: true }).click()
    await card.getByLabel('What you changed and why', { exact: true }).fill(NOTE)
    await card.getByRole('button', { name: 'Approve with these edits', exact: true }).click()
    await card.getByText('Approved with edits', { exact: true }).waitFor({ timeout: 10_000 })
    expect(await card.getByTestId('decision-note').innerText()).toBe(NOTE)
    const footer = await card.getByTestId('record-footer').innerText()
    await card.getByRole('link', { name: 'Open the record', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Exposure is below the LLOQ late' }).waitFor()
    const decision = page.getByTestId('record-decision')
    await decision.waitFor({ timeout: 10_000 })
    expect(await decision.getByTestId('decision-note').innerText()).toBe(NOTE)
    expect(await decision.locator('.record-footer').innerText()).toBe(footer)
    expect(await page.getByTestId('record-version').first().innerText()).toContain(NOTE)
    expect(await plumbingIn(page)).toEqual([])
    await page.screenshot({ path: `${SCREENSHOTS}/record-decision-note-1440.png`, fullPage: true })
    await page.goBack()
    await page.getByRole('heading', { level: 3, name: FIXED_PHRASES.decisionsWaiting }).waitFor()
  })

  it('approves with an edited title, text and record text, and reads what was approved beside what was proposed on the card and on the record page', async () => {
    const page = sofia.page
    await twinProposes('scientist', 'Liver weight change is dose related', { body: 'Liver weights rose with dose.' })
    const card = page.getByTestId('proposal-card').filter({ hasText: 'Liver weight change is dose related' })
    await card.waitFor({ timeout: 15_000 })
    await card.getByRole('button', { name: 'Approve with edits', exact: true }).click()
    const title = 'Liver weight change is dose related at ≥25 mg/kg & above'
    const text = "The twin's reading, corrected: weights rose where AUC>100 µg·h/mL, not at <5 mg/kg."
    const body = 'Liver weights rose with dose (<b>not</b> at <5 mg/kg).'
    await card.getByLabel('Title', { exact: true }).fill(title)
    await card.getByLabel('Text', { exact: true }).fill(text)
    await card.getByLabel('Record text', { exact: true }).fill(body)
    await card.getByLabel('What you changed and why', { exact: true }).fill(NOTE)
    await card.getByRole('button', { name: 'Approve with these edits', exact: true }).click()
    await card.getByText('Approved with edits', { exact: true }).waitFor({ timeout: 10_000 })
    // The card reads the approved title, and the approved text beside the proposed one, with the note.
    const decided = page.getByTestId('proposal-card').filter({ has: page.getByRole('heading', { level: 4, name: title, exact: true }) })
    await decided.waitFor()
    expect(await decided.getByTestId('approved-title').innerText()).toBe(title)
    expect(await decided.getByTestId('approved-text').innerText()).toBe(text)
    expect(await decided.getByTestId('approved-record-text').innerText()).toBe(body)
    await decided.getByText("The twin's reading: Liver weight change is dose related.", { exact: true }).waitFor()
    expect(await decided.getByTestId('decision-note').innerText()).toBe(NOTE)
    const records = await gql(gateway(), '{ program(slug: "illustrative-program") { records(type: "evidence.findings", first: 20) { nodes { title body footer } } } }', {}, await tenant.token('scientist'))
    const written = records.body.data.program.records.nodes.find((r: { title: string }) => r.title === title)
    expect(written).toMatchObject({ body, footer: await decided.getByTestId('record-footer').innerText() })
    await page.screenshot({ path: `${SCREENSHOTS}/home-approved-with-edits-1440.png`, fullPage: true })

    await decided.getByRole('link', { name: 'Open the record', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor()
    await page.getByText(body, { exact: true }).first().waitFor()
    const decision = page.getByTestId('record-decision')
    await decision.waitFor({ timeout: 10_000 })
    expect(await decision.getByTestId('approved-title').innerText()).toBe(title)
    expect(await decision.getByTestId('approved-text').innerText()).toBe(text)
    await decision.getByText('Liver weight change is dose related', { exact: true }).first().waitFor()
    expect(await decision.getByTestId('decision-note').innerText()).toBe(NOTE)
    expect(await plumbingIn(page)).toEqual([])
    await page.screenshot({ path: `${SCREENSHOTS}/record-approved-with-edits-1440.png`, fullPage: true })
    await page.goBack()
    await page.getByRole('heading', { level: 3, name: FIXED_PHRASES.decisionsWaiting }).waitFor()
  })

  it('declines a proposal with a reason using the keyboard alone, in an inline form', async () => {
    await twinProposes('scientist', 'Liver signal is an artefact')
    const page = sofia.page
    const card = page.getByTestId('proposal-card').filter({ hasText: 'Liver signal is an artefact' })
    await card.waitFor({ timeout: 15_000 })
    await card.getByRole('button', { name: 'Decline', exact: true }).focus()
    await page.keyboard.press('Enter')
    await card.getByText(TWINS.declineNeedsReason, { exact: true }).waitFor()
    // The reason list has the focus: pick the first reason, move to the text, write, move to the button, press it.
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Tab')
    await page.keyboard.type('The weights were within the historical range.')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await card.getByText('Declined', { exact: true }).waitFor({ timeout: 10_000 })
    // The focus went to the outcome, not back to the page's start.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.className)).toBe('outcome')
    const decided = await gql(gateway(), '{ myInbox(first: 20, status: [done]) { nodes { title proposal { decision { outcome reasonCode reason } } } } }', {}, await tenant.token('scientist'))
    const item = decided.body.data.myInbox.nodes.find((n: { title: string }) => n.title.includes('Liver signal is an artefact'))
    expect(item.proposal.decision).toEqual({ outcome: 'declined', reasonCode: 'incorrect', reason: 'The weights were within the historical range.' })
    // The card reads the record footer, the reason and the person's words.
    expect(await card.getByTestId('record-footer').innerText()).toMatch(/^Proposed by Sofia Scientist's twin \(agent(, working as [^)]+)?\); decided by Sofia Scientist$/)
    expect(await card.getByTestId('decline-reason-code').innerText()).toBe('Incorrect')
    expect(await card.getByTestId('decline-reason').innerText()).toBe('The weights were within the historical range.')
  })

  it("declines a change to a record with a reason, and reads the footer and the person's words on the card and on the record page", async () => {
    const page = sofia.page
    const { basis } = await twinProposes('scientist', 'Liver weights are unchanged', { update: true })
    const card = page.getByTestId('proposal-card').filter({ hasText: 'Liver weights are unchanged' })
    await card.waitFor({ timeout: 15_000 })
    await card.getByRole('button', { name: 'Decline', exact: true }).click()
    await card.getByLabel('Reason', { exact: true }).selectOption('incomplete')
    const words = 'Recovery group missing: ALT <3× ULN & AUC>100 only at day 28.'
    await card.getByLabel('In your words', { exact: true }).fill(words)
    await card.getByRole('button', { name: 'Decline', exact: true }).last().click()
    await card.getByText('Declined', { exact: true }).waitFor({ timeout: 10_000 })
    const footer = await card.getByTestId('record-footer').innerText()
    expect(footer).toMatch(/^Proposed by Sofia Scientist's twin \(agent(, working as [^)]+)?\); decided by Sofia Scientist$/)
    expect(await card.getByTestId('decline-reason-code').innerText()).toBe('Incomplete')
    expect(await card.getByTestId('decline-reason').innerText()).toBe(words)

    await page.goto(`${stack.current.gatewayUrl}/p/illustrative-program/records/${basis.id}`)
    await page.getByRole('heading', { level: 1, name: 'Basis for Liver weights are unchanged' }).waitFor()
    const decision = page.getByTestId('record-decision')
    await decision.waitFor({ timeout: 10_000 })
    await decision.getByText('Declined', { exact: true }).waitFor()
    expect(await decision.getByTestId('decline-reason-code').innerText()).toBe('Incomplete')
    expect(await decision.getByTestId('decline-reason').innerText()).toBe(words)
    expect(await decision.locator('.record-footer').innerText()).toBe(footer)
    expect(await plumbingIn(page)).toEqual([])
    await page.screenshot({ path: `${SCREENSHOTS}/record-declined-1440.png`, fullPage: true })
    await page.goBack()
    await page.getByRole('heading', { level: 3, name: FIXED_PHRASES.decisionsWaiting }).waitFor()
  })

  it("moves a proposal that expires to 'Expired, nothing written' while the page is open", async () => {
    const filed = await twinProposes('scientist', 'Ask for the recovery group data')
    const card = sofia.page.getByTestId('proposal-card').filter({ hasText: 'Ask for the recovery group data' })
    await card.waitFor({ timeout: 15_000 })
    const past = new Date(Date.now() - 1000)
    await stack.db.db.runInterrupt.update({ where: { id: filed.proposalId }, data: { expiresAt: past } })
    await stack.db.db.inboxItem.update({ where: { id: filed.inboxItemId }, data: { dueAt: past } })
    await sweepInbox(stack.db.db)
    await card.getByText(FIXED_PHRASES.expiredNothingWritten, { exact: true }).waitFor({ timeout: 10_000 })
    expect(await card.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0)
  })

  it("offers the workbench role picker with its sentence, and reads 'Set by <Name> on <date>. Change' once a lead assigned one", async () => {
    const page = sofia.page
    await page.getByRole('button', { name: WORKBENCH.chooseYourWorkbenchRole }).click()
    await page.getByText(WORKBENCH.pickerSentence, { exact: true }).waitFor()
    const select = page.getByLabel('Workbench role', { exact: true })
    await expect.poll(() => select.locator('option').count()).toBeGreaterThan(1)
    const options = await select.locator('option').evaluateAll((els) => els.map((e) => ({ value: (e as any).value as string, text: (e as any).textContent as string })))
    const pick = options.find((o) => o.value)!
    await select.selectOption(pick.value)
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText(pick.text, { exact: true }).waitFor()
    expect(await page.getByRole('button', { name: WORKBENCH.chooseYourWorkbenchRole }).count()).toBe(0)

    const assigned = await gql(gateway(), 'mutation($p: ID!, $u: ID!, $k: String!) { assignWorkbenchRole(programId: $p, userId: $u, input: { workbenchRoleKey: $k }) { __typename } }',
      { p: tenant.program.id, u: tenant.users.scientist.id, k: pick.value }, await tenant.token('program_lead'))
    expect(assigned.body.data.assignWorkbenchRole.__typename).toMatch(/Success$/)
    await page.reload()
    const date = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' }).format(new Date())
    const line = page.locator('.role-line')
    await expect.poll(() => line.innerText()).toContain(`Set by Liam Lead on ${date}. Change`)
    await line.getByRole('button', { name: 'Change', exact: true }).waitFor()
    await page.screenshot({ path: `${SCREENSHOTS}/home-role-set-1440.png`, fullPage: true })
  })

  it('fits a 390 px wide screen without horizontal scrolling', async () => {
    await sofia.page.setViewportSize({ width: 390, height: 844 })
    await sofia.page.reload()
    await sofia.page.getByRole('heading', { level: 3, name: FIXED_PHRASES.decisionsWaiting }).waitFor()
    expect(await scrollsHorizontally(sofia.page)).toBe(false)
    await sofia.page.screenshot({ path: `${SCREENSHOTS}/home-390.png`, fullPage: true })
  })

  it('raised no console error, no page error, no request off 127.0.0.1 and no popup on the way, and shows no internal word', async () => {
    for (const person of [sofia, liam]) {
      expect(await plumbingIn(person.page)).toEqual([])
      expect(person.watch.pageErrors).toEqual([])
      expect(person.watch.consoleErrors).toEqual([])
      expect(person.watch.foreignRequests).toEqual([])
      expect(person.dialogs).toEqual([])
      expect(await person.popups.problems()).toEqual([]) // no window opened, no modal element at any moment
    }
  })
})
