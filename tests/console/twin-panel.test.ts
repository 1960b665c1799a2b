// The twin panel in real Chromium over the real stack: the demo twin's status and next pass, pause ('Paused. Nothing
// runs until you resume.'), resume and run now by the keyboard, the standing plan it runs under; a viewer has no twin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, startTestWorker } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { FIXED_PHRASES, TWINS } from '../../core/text'

const stack = useStack()
const PROGRAM = ILLUSTRATIVE.program.name
let tenant: Tenant
let browser: Browser
let sofia: ConsolePerson
let vera: ConsolePerson
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? '/tmp/console-screenshots'
const today = () => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' }).format(new Date())

beforeAll(async () => {
  const db = stack.db.db
  const seed = await seedIllustrative(db)
  await seedIllustrativeTwins(db, seed)
  tenant = illustrativeTenant(seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await worker?.close()
  await sofia?.close()
  await vera?.close()
  await browser?.close()
})

const twinOf = () => stack.db.db.twinDefinition.findFirstOrThrow({ where: { programId: tenant.program.id, userId: tenant.users.scientist.id, personaKey: 'scientist' } })
const panel = () => sofia.page.getByTestId('twin-panel')
const status = () => panel().getByTestId('twin-status')

describe('the twin panel', { timeout: 60_000 }, () => {
  it('shows the twin as active with its next pass, and the standing plan it runs under with its approval date', async () => {
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, PROGRAM)
    await panel().getByRole('heading', { level: 2, name: 'Your twin' }).waitFor()
    await expect.poll(() => status().innerText()).toMatch(/^Active\. Next pass at \d{2}:\d{2}\.$/)
    const plan = panel().getByTestId('standing-plan')
    await plan.getByText(/^Blocker scan, on a schedule/).waitFor()
    const twin = await twinOf()
    const trigger = await stack.db.db.twinTrigger.findFirstOrThrow({ where: { twinId: twin.id, dutyKey: 'blocker_scan' } })
    expect(await plan.innerText()).toContain(`Approved on ${today()}, plan ${trigger.standingPlanHash!.slice(0, 8)}`)
    expect(await plumbingIn(sofia.page)).toEqual([])
  })

  it("pauses by the keyboard, reads 'Paused. Nothing runs until you resume.', and nothing runs until resumed", async () => {
    const page = sofia.page
    await panel().getByRole('button', { name: 'Pause', exact: true }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => status().innerText()).toBe(FIXED_PHRASES.paused)
    expect((await twinOf()).status).toBe('paused')
    expect(await panel().getByRole('button', { name: 'Run now', exact: true }).count()).toBe(0)
    // Still paused after a reload: the panel reads the service, not the page.
    await page.reload()
    await expect.poll(() => status().innerText()).toBe(FIXED_PHRASES.paused)
    await page.screenshot({ path: `${SCREENSHOTS}/twin-paused-1440.png`, fullPage: true })
    await panel().getByRole('button', { name: 'Resume', exact: true }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => status().innerText()).toMatch(/^Active\./)
    expect((await twinOf()).status).toBe('active')
  })

  it('runs now: a pass started by the person, under their standing plan', async () => {
    const twinId = (await twinOf()).id
    const before = await stack.db.db.agentRun.count({ where: { twinId } })
    await panel().getByRole('button', { name: 'Run now', exact: true }).click()
    const line = panel().getByTestId('twin-run')
    await line.waitFor()
    await expect.poll(() => stack.db.db.agentRun.count({ where: { twinId } })).toBeGreaterThan(before)
    const run = await stack.db.db.agentRun.findFirstOrThrow({ where: { twinId }, orderBy: { createdAt: 'desc' } })
    expect(run.initiatedBy).toBe('user')
    expect(await line.innerText()).toMatch(/standing plan/)
    expect(await line.innerText()).not.toMatch(/Requested by/)
    expect(await plumbingIn(sofia.page)).toEqual([])
  })

  it('says, after a second "Run now", that the proposal on the same basis is already waiting, and files no second one', async () => {
    worker = await startTestWorker(stack.db)
    const twinId = (await twinOf()).id
    const question = 'What unblocks No GLP safety pharmacology core battery yet (illustrative)?'
    const waiting = () => stack.db.db.inboxItem.count({ where: { userId: tenant.users.scientist.id, kind: 'decision', status: 'open', title: question } })
    const summary = panel().getByTestId('twin-run-summary')
    await panel().getByRole('button', { name: 'Run now', exact: true }).click()
    await expect.poll(() => summary.count(), { timeout: 45_000 }).toBe(1)
    expect(await waiting()).toBe(1)
    await panel().getByRole('button', { name: 'Run now', exact: true }).click()
    await expect.poll(async () => (await summary.count()) ? summary.innerText() : '', { timeout: 45_000 })
      .toBe(`Filed no new proposal. Already waiting for your decision, so not filed again: “${question}”.`)
    expect(await waiting()).toBe(1)
    const runs = await stack.db.db.agentRun.findMany({ where: { twinId, initiatedBy: 'user', status: 'succeeded' } })
    expect(runs.length).toBeGreaterThanOrEqual(2)
    await sofia.page.screenshot({ path: `${SCREENSHOTS}/twin-run-already-waiting-1440.png`, fullPage: true })
    expect(await plumbingIn(sofia.page)).toEqual([])
  })

  it("tells a viewer 'Viewers have no twin. Nothing waits for you.', with no twin control", async () => {
    vera = await openConsoleAs(browser, stack.current.gatewayUrl, 'Vera Viewer')
    await openProgramHome(vera.page, PROGRAM)
    const viewerPanel = vera.page.getByTestId('twin-panel')
    await viewerPanel.getByTestId('twin-status').getByText(TWINS.viewersHaveNoTwin, { exact: true }).waitFor()
    expect(await viewerPanel.getByRole('button').count()).toBe(0)
    expect(await plumbingIn(vera.page)).toEqual([])
  })

  it('fits a 390 px wide screen without horizontal scrolling, with no console error and no popup', async () => {
    const page = sofia.page
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload()
    await expect.poll(() => status().innerText()).toMatch(/^Active\./)
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/twin-panel-390.png`, fullPage: true })
    for (const person of [sofia, vera]) {
      expect(person.watch.pageErrors).toEqual([])
      expect(person.watch.consoleErrors).toEqual([])
      expect(person.watch.foreignRequests).toEqual([])
      expect(person.dialogs).toEqual([])
    }
  })
})
