// The web checks on the console itself (issue 27 section 3), through the gateway the stack serves, in real Chromium:
// every screen the console has, signed in as the illustrative people, at 1440 and 390 pixels wide (checkScreen:
// zero console errors and failed requests, no plumbing word, no serious or critical axe violation, no sideways
// scrolling, the primary action visible, the pictures in the screenshot folder); no popup or modal during any of it;
// and the decide and forget journeys with the keyboard alone.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { gql, useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { checkScreen, screenshotFolder, watchScreens, WIDTHS, type ScreenWatch } from '../helpers/web-checks'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { contextForUser } from '../../core/jobs'
import { applyRecordChange } from '../../domain/records'
import { fileProposal } from '../../domain/proposals'
import { keepMemoryNote } from '../../domain/memory'
import { sweepInbox } from '../../domain/inbox'
import { mintDevToken } from '../../core/identity'
import { FIXED_PHRASES, MEMORY_PANEL, TWINS, WORKBENCH } from '../../core/text'

const stack = useStack()
const base = () => stack.current.gatewayUrl
const db = () => stack.db.db
const PROGRAM = ILLUSTRATIVE.program
const PEOPLE = [...ILLUSTRATIVE.users, { ...ILLUSTRATIVE.admin, persona: 'org_admin' }]
type Seeded = Awaited<ReturnType<typeof seedIllustrative>>

let browser: Browser
let seeded: Seeded
const opened: BrowserContext[] = []
/** Every screen checked, with its widths: the figure the report gives. */
const checked: string[] = []

beforeAll(async () => {
  seeded = await seedIllustrative(db())
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  for (const c of opened) await c.close().catch(() => {})
  await browser?.close()
  if (checked.length) console.info(`web checks: ${checked.length} screens x ${WIDTHS.length} widths checked (${checked.join(', ')}); pictures in ${screenshotFolder()}`)
})

/** A new browser context (its own session storage: its own person) and a page watched from the start. */
async function newPage(): Promise<{ page: Page; watch: ScreenWatch }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  opened.push(context)
  const page = await context.newPage()
  return { page, watch: await watchScreens(page) }
}

async function check(page: Page, name: string, primaryAction: Locator) {
  await checkScreen(page, name, { primaryAction })
  checked.push(name)
}

/** Signs in through the development sign-in page by clicking the person. */
async function signIn(page: Page, name: string) {
  await page.goto(`${base()}/sign-in`)
  await page.getByRole('button', { name: new RegExp(`^${name}\\b`) }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/** The role home, loaded: its four regions and the inbox answered (a card or the empty state). */
async function openRoleHome(page: Page) {
  await page.goto(`${base()}/p/${PROGRAM.slug}/home`)
  await page.getByRole('heading', { name: WORKBENCH.homeRegions[3] }).waitFor()
  await page.locator('[data-testid="proposal-card"], [data-testid="inbox-empty"]').first().waitFor().catch(async (e: Error) => {
    throw new Error(`${e.message}\nThe page read:\n${await page.locator('body').innerText()}`)
  })
}

const card = (page: Page, title: string) => page.locator('[data-testid="proposal-card"]', { has: page.getByRole('heading', { name: title }) })

/** A twin of `persona`'s person files a proposal to change a new hypothesis, with a finding as its basis. */
async function fileDecision(persona: string, title: string) {
  const orgId = seeded.organization.id
  const programId = seeded.program.id
  const lead = await contextForUser(db(), seeded.users.program_lead.id, orgId)
  const hypothesis = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.hypotheses', title, fields: { confidence: 'low' } })
  const finding = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title: `Finding behind ${title}`, fields: { kind: 'observation' } })
  const twinId = randomUUID()
  const person = seeded.users[persona]
  const run = await db().agentRun.create({ data: { organizationId: orgId, programId, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user', startedByUserId: person.id } })
  const twin = await contextForUser(db(), person.id, orgId, { twinId })
  const filed = await fileProposal(twin, {
    runId: run.id, change: { kind: 'update', recordId: hypothesis.recordId, fields: { confidence: 'high' } }, basisRecordIds: [finding.recordId],
    draft: 'The new assay data support a higher confidence.', tool: 'evidence.propose_hypothesis_change',
  })
  /** Changes the basis, so the proposal reads 'Changed since proposed'. */
  const changeBasis = () => applyRecordChange(lead, { kind: 'update', recordId: finding.recordId, title: `Finding behind ${title}, revised` })
  return { ...filed, changeBasis }
}

const focused = (target: Locator) => target.evaluate((el) => el === (globalThis as any).document.activeElement).catch(() => false)

/**
 * Presses Tab until the focused element is the one `target` names (at most `max` times), as a keyboard user would;
 * nothing when focus is there already. Fails when focus never reaches it.
 */
async function tabTo(page: Page, target: Locator, max = 80) {
  for (let i = 0; i < max && !(await focused(target)); i++) await page.keyboard.press('Tab')
  if (!(await focused(target))) throw new Error(`Tab never reached ${target}`)
}

describe('every console screen passes the web checks at 1440 and 390 pixels wide', () => {
  it('the sign-in page', async () => {
    const { page } = await newPage()
    await page.goto(`${base()}/`)
    await page.getByRole('heading', { name: 'Choose a person from the illustrative program' }).waitFor()
    await check(page, 'sign-in', page.getByRole('button', { name: /^Olivia Owner\b/ }))
  }, 120_000)

  it('the programs, the role home of each illustrative person, and a page that does not exist', async () => {
    for (const person of PEOPLE) {
      const { page } = await newPage()
      await signIn(page, person.name)
      const slug = person.persona.replace(/_/g, '-')
      if (person.persona === 'program_owner') {
        await page.getByRole('link', { name: PROGRAM.name }).waitFor()
        await check(page, 'programs', page.getByRole('link', { name: PROGRAM.name }))
        await page.goto(`${base()}/no-such-page`)
        await page.getByRole('heading', { name: 'This page does not exist' }).waitFor()
        await check(page, 'not-found', page.getByRole('link', { name: 'Go to your programs' }))
      }
      if (person.persona === 'org_admin') {
        // An organisation administrator is a member of no program: the programs page's empty state.
        await page.getByText('You are not a member of any program yet.').waitFor()
        await check(page, 'programs-no-program', page.getByRole('button', { name: 'Sign out' }))
        continue
      }
      await openRoleHome(page)
      // The role home's first control: choosing the workbench role (or changing it once chosen).
      await check(page, `role-home-${slug}`, page.locator('.role-line button').first())
      if (person.persona === 'viewer') expect(await page.getByTestId('inbox-empty').innerText()).toBe(TWINS.viewersHaveNoTwin)
    }
  }, 600_000)

  it('the role home with a decision waiting, its stale and open cards, the decline form and the workbench role picker open', async () => {
    const fresh = await fileDecision('program_owner', 'Target Y drives the effect')
    const stale = await fileDecision('program_owner', 'Target Z drives the effect')
    await stale.changeBasis()
    const { page } = await newPage()
    await signIn(page, 'Olivia Owner')
    await openRoleHome(page)
    const open = card(page, 'Target Y drives the effect')
    await open.waitFor()
    await expect.poll(() => card(page, 'Target Z drives the effect').getByTestId('stale').count()).toBe(1)
    expect(await open.getByText(FIXED_PHRASES.agentGeneratedDraft).count()).toBe(1)
    await check(page, 'role-home-decision', open.getByRole('button', { name: 'Approve', exact: true }))

    await open.getByRole('button', { name: 'Decline' }).click()
    const declineForm = open.locator('form')
    await declineForm.waitFor()
    await check(page, 'role-home-decline-form', declineForm.getByRole('button', { name: 'Decline' }))

    await page.locator('.role-line button').first().click()
    await page.getByLabel('Workbench role').waitFor()
    await check(page, 'role-home-workbench-role-picker', page.getByRole('button', { name: 'Save' }))
    expect(fresh.proposalId).toBeTruthy()
  }, 300_000)

  it("the role home with an expired card and the line 'Set by <Name> on <date>. Change' after a lead assigned the workbench role", async () => {
    const filed = await fileDecision('scientist', 'Target E drives the effect')
    const past = new Date(Date.now() - 1000)
    await db().runInterrupt.update({ where: { id: filed.proposalId }, data: { expiresAt: past } })
    await db().inboxItem.update({ where: { id: filed.inboxItemId }, data: { dueAt: past } })
    await sweepInbox(db())
    const scientist = await mintDevToken(seeded.users.scientist)
    const roles = await gql(`${base()}/graphql`, 'query($p: ID!) { workbenchRoles(programId: $p) { key pickable } }', { p: seeded.program.id }, scientist)
    const key = roles.body.data.workbenchRoles.find((r: { pickable: boolean }) => r.pickable).key
    const assigned = await gql(`${base()}/graphql`, 'mutation($p: ID!, $u: ID!, $k: String!) { assignWorkbenchRole(programId: $p, userId: $u, input: { workbenchRoleKey: $k }) { __typename } }',
      { p: seeded.program.id, u: seeded.users.scientist.id, k: key }, await mintDevToken(seeded.users.program_lead))
    expect(assigned.body.data.assignWorkbenchRole.__typename).toMatch(/Success$/)

    const { page } = await newPage()
    await signIn(page, 'Sofia Scientist')
    await openRoleHome(page)
    await card(page, 'Target E drives the effect').getByTestId('expired').waitFor()
    await page.locator('.role-line', { hasText: 'Set by Liam Lead on ' }).waitFor()
    await check(page, 'role-home-expired-and-set-by', page.locator('.role-line').getByRole('button', { name: 'Change', exact: true }))
  }, 180_000)
})

describe('the journeys, with the keyboard alone', () => {
  it('decides: sign in, open the program, approve the proposal, and read the footer, without the mouse', async () => {
    const title = 'Target K drives the effect'
    await fileDecision('program_owner', title)
    const { page, watch } = await newPage()
    await page.goto(`${base()}/sign-in`)
    await page.getByRole('heading', { name: 'Choose a person from the illustrative program' }).waitFor()
    await tabTo(page, page.getByRole('button', { name: /^Olivia Owner\b/ }))
    await page.keyboard.press('Enter')
    const programLink = page.getByRole('link', { name: PROGRAM.name })
    await programLink.waitFor()
    await tabTo(page, programLink)
    await page.keyboard.press('Enter')
    const proposal = card(page, title)
    await proposal.waitFor()
    await tabTo(page, proposal.getByRole('button', { name: 'Approve', exact: true }))
    await page.keyboard.press('Enter')
    const footer = proposal.getByTestId('record-footer')
    await footer.waitFor()
    expect(await footer.innerText()).toMatch(/^Proposed by Olivia Owner's twin \(agent(, working as [^)]+)?\); decided by Olivia Owner$/)
    await check(page, 'role-home-decided', footer)
    expect(watch.consoleErrors).toEqual([])
  }, 180_000)

  it('declines with a reason, without the mouse: the inline form, its reason and Escape to cancel', async () => {
    const title = 'Target L drives the effect'
    await fileDecision('program_owner', title)
    const { page, watch } = await newPage()
    await signIn(page, 'Olivia Owner')
    await openRoleHome(page)
    const proposal = card(page, title)
    await proposal.waitFor()
    const decline = proposal.getByRole('button', { name: 'Decline' })
    await tabTo(page, decline)
    await page.keyboard.press('Enter')
    await page.keyboard.press('Escape')
    await expect.poll(() => proposal.locator('form').count()).toBe(0)
    await decline.focus() // (focus is where the keyboard left it: the form is gone, the button stays)
    await page.keyboard.press('Enter')
    const reason = proposal.getByLabel('Reason')
    await expect.poll(() => focused(reason)).toBe(true) // the form takes focus
    await page.keyboard.press('ArrowDown') // 'Incorrect'
    await tabTo(page, proposal.locator('form').getByRole('button', { name: 'Decline' }), 5)
    await page.keyboard.press('Enter')
    await proposal.getByText('Declined').first().waitFor()
    expect(await watch.popups.problems()).toEqual([])
    expect([...watch.consoleErrors, ...watch.pageErrors, ...watch.failedRequests]).toEqual([])
  }, 180_000)

  it('the memory and twin panels, the stage gates, a record, the hand-offs and delegations, and the skills', async () => {
    const orgId = seeded.organization.id
    const lead = await contextForUser(db(), seeded.users.program_lead.id, orgId)
    const record = await applyRecordChange(lead, { kind: 'create', programId: seeded.program.id, recordType: 'evidence.findings', title: 'Exposure rises with dose', fields: { kind: 'observation' } })
    const owner = await contextForUser(db(), seeded.users.program_owner.id, orgId)
    await keepMemoryNote(owner, { programId: seeded.program.id, kind: 'vocabulary', summary: 'Says exposure for AUC at steady state.' })
    const { page } = await newPage()
    await signIn(page, 'Olivia Owner')
    await page.goto(`${base()}/p/${PROGRAM.slug}/home?remembers=1`)
    await page.getByRole('heading', { name: MEMORY_PANEL.regions[0] }).waitFor()
    await page.getByTestId('twin-status').waitFor()
    const note = page.locator('li, article', { hasText: 'Says exposure for AUC at steady state.' }).last()
    await check(page, 'role-home-memory-and-twin-panels', note.getByRole('button', { name: MEMORY_PANEL.controls.forget, exact: true }))
    await page.goto(`${base()}/p/${PROGRAM.slug}/stage-gates`)
    await page.getByRole('heading', { name: 'Stage gates', level: 1 }).waitFor()
    await check(page, 'stage-gates', page.getByRole('heading', { name: 'Stage gates', level: 1 }))
    await page.goto(`${base()}/p/${PROGRAM.slug}/records/${record.recordId}`)
    await page.getByRole('heading', { name: 'Exposure rises with dose', level: 1 }).waitFor()
    await check(page, 'record', page.getByRole('link', { name: PROGRAM.name }).first())
    await page.goto(`${base()}/p/${PROGRAM.slug}/handoffs`)
    await page.getByRole('heading', { name: 'Hand-offs and delegations', level: 1 }).waitFor()
    await check(page, 'handoffs-and-delegations', page.getByRole('button', { name: 'Delegate', exact: true }))
    await page.goto(`${base()}/p/${PROGRAM.slug}/skills`)
    await page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor()
    await check(page, 'skills', page.getByRole('button', { name: 'Project the dose' }))
  }, 240_000)

  it('forgets a kept note from the memory panel, without the mouse', async () => {
    const owner = seeded.users.program_owner
    const me = await contextForUser(db(), owner.id, seeded.organization.id)
    const summary = 'Prefers dose tables in mg/kg.'
    await keepMemoryNote(me, { programId: seeded.program.id, kind: 'preference', summary })
    const { page } = await newPage()
    await signIn(page, 'Olivia Owner')
    await page.goto(`${base()}/p/${PROGRAM.slug}/home?remembers=1`)
    await page.getByRole('heading', { name: WORKBENCH.homeRegions[0] }).waitFor()
    await page.getByRole('heading', { name: MEMORY_PANEL.regions[0] }).waitFor()
    const note = page.locator('li, article', { hasText: summary }).last()
    await note.waitFor()
    await tabTo(page, note.getByRole('button', { name: MEMORY_PANEL.controls.forget, exact: true }))
    await page.keyboard.press('Enter')
    const confirm = note.getByRole('button', { name: MEMORY_PANEL.confirmForget })
    await expect.poll(() => focused(confirm)).toBe(true)
    await page.keyboard.press('Escape') // 'Confirm forget' reverts on Escape
    await expect.poll(() => confirm.count()).toBe(0)
    await tabTo(page, note.getByRole('button', { name: MEMORY_PANEL.controls.forget, exact: true }), 5)
    await page.keyboard.press('Enter')
    await page.keyboard.press('Enter')
    await page.getByText(MEMORY_PANEL.forgotten).waitFor()
    await check(page, 'memory-panel-forgotten', page.getByText(MEMORY_PANEL.forgotten))
    await page.keyboard.press('Escape') // closes the panel, the address losing ?remembers=1
    await expect.poll(() => new URL(page.url()).searchParams.has('remembers')).toBe(false)
  }, 180_000)
})
