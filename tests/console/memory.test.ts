// The memory panel in real Chromium over the real stack: the twin proposes a note beneath a proposal, the person keeps
// it (Keep / Not now in the inbox), opens the panel from the role home (?remembers=1), reads its three regions in order
// and the fixed statements, forgets the note with the keyboard alone (two-step, 'Confirm forget' reverting on Escape),
// and the panel says so; the episodic line, Keep across programs, the disabled lines and 'Viewed by <Name> on <date>.'.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { MEMORY, MEMORY_PANEL, viewedBy } from '../../core/text'
import { connect, runningRun } from '../twins/tools-helpers'
import { KEEP, MY, OVERSIGHT } from '../memory/helpers'

const stack = useStack()
const PROGRAM = ILLUSTRATIVE.program.name
let tenant: Tenant
let browser: Browser
let sofia: ConsolePerson
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
  await sofia?.close()
  await browser?.close()
})

/** The scientist's twin files a question and, in the same run, proposes a note shown beneath it. */
async function twinProposesWithNote(title: string, note: { kind: string; summary: string }) {
  const run = await runningRun(stack.db.db, tenant, 'scientist')
  const client = await connect(stack.current.toolsUrl, run)
  try {
    const filed = await client.call('evidence.propose_question', { change: { kind: 'create', title }, draft: `The twin asks: ${title}` })
    expect(filed.ok).toBe(true)
    const proposed = await client.call('memory.propose_note', note)
    expect(proposed).toMatchObject({ ok: true, value: { proposed: true } })
  } finally {
    await client.close()
  }
}

const myMemory = async () => (await gql(gateway(), MY, { p: tenant.program.id }, await tenant.token('scientist'))).body.data.myMemory.nodes as { id: string; summary: string; status: string; tier: string }[]
const panel = () => sofia.page.locator('#memory-panel')
const item = (summary: string) => panel().locator('article').filter({ hasText: summary })

describe('the memory panel', { timeout: 60_000 }, () => {
  it('keeps a note the twin proposed, with Keep beneath the proposal it came from in the inbox', async () => {
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, PROGRAM)
    await twinProposesWithNote('Which species goes first in the dose table?', { kind: 'preference', summary: 'Prefers the rat study first in dose tables.' })
    const card = sofia.page.getByTestId('proposal-card').filter({ hasText: 'Which species goes first in the dose table?' })
    await card.waitFor({ timeout: 15_000 })
    const note = card.getByTestId('memory-note')
    await note.getByText('Prefers the rat study first in dose tables.', { exact: true }).waitFor({ timeout: 15_000 })
    // Decided first: the question stays beneath the decided card.
    await card.getByRole('button', { name: 'Approve', exact: true }).click()
    await card.getByTestId('record-footer').waitFor({ timeout: 10_000 })
    await card.getByText(MEMORY.savesNothingUnlessYouSay, { exact: true }).waitFor()
    await note.getByRole('button', { name: MEMORY_PANEL.controls.notNow, exact: true }).waitFor()
    expect(await myMemory()).toEqual([])
    await note.getByRole('button', { name: MEMORY_PANEL.controls.keep, exact: true }).click()
    await note.getByRole('status').waitFor()
    await expect.poll(async () => (await myMemory()).map((r) => r.summary)).toEqual(['Prefers the rat study first in dose tables.'])
    expect(await plumbingIn(sofia.page)).toEqual([])
  })

  it('opens from the role home beside the regions, the address gaining ?remembers=1, with its three regions in order and the statements about saving and training', async () => {
    const page = sofia.page
    await page.getByRole('button', { name: 'What your twin remembers', exact: true }).click()
    await panel().waitFor()
    expect(new URL(page.url()).searchParams.get('remembers')).toBe('1')
    const regions = await panel().getByRole('heading', { level: 3 }).allInnerTexts()
    expect(regions.slice(0, 2)).toEqual(MEMORY_PANEL.regions.slice(0, 2))
    expect(regions[2]).toMatch(/^Shared by \S.*s$/)
    await panel().getByText(MEMORY.savesNothingUnlessYouSay, { exact: true }).waitFor()
    await panel().getByText(MEMORY.neverUsedToTrain, { exact: true }).waitFor()
    await item('Prefers the rat study first in dose tables.').waitFor()
    // Docked beside the regions at 1440: the panel's left edge is right of the decisions region's.
    const [box, decisions] = [await panel().boundingBox(), await page.locator('section[aria-labelledby="region-decisions"]').boundingBox()]
    expect(box!.x).toBeGreaterThan(decisions!.x + decisions!.width - 1)
    // The address is the state: a reload opens it again.
    await page.reload()
    await item('Prefers the rat study first in dose tables.').waitFor()
    expect(await plumbingIn(page)).toEqual([])
    await page.screenshot({ path: `${SCREENSHOTS}/memory-panel-1440.png`, fullPage: true })
  })

  it("forgets the note with the keyboard alone: 'Confirm forget' reverts on Escape, then the place reads that it is forgotten", async () => {
    const page = sofia.page
    const note = item('Prefers the rat study first in dose tables.')
    const forget = note.getByRole('button', { name: MEMORY_PANEL.controls.forget, exact: true })
    await forget.focus()
    await page.keyboard.press('Enter')
    const confirm = note.getByRole('button', { name: MEMORY_PANEL.confirmForget, exact: true })
    await confirm.waitFor()
    // Escape disarms the control and leaves the panel open.
    await page.keyboard.press('Escape')
    await forget.waitFor()
    expect(await panel().isVisible()).toBe(true)
    // Moving away disarms it too.
    await page.keyboard.press('Enter')
    await confirm.waitFor()
    await page.keyboard.press('Tab')
    await forget.waitFor()
    await page.keyboard.press('Shift+Tab')
    // Clicking elsewhere disarms it.
    await page.keyboard.press('Enter')
    await confirm.waitFor()
    await panel().getByText(MEMORY.neverUsedToTrain, { exact: true }).click()
    await forget.waitFor()
    // Armed, then confirmed: both by the keyboard.
    await forget.focus()
    await page.keyboard.press('Enter')
    await confirm.waitFor()
    await page.keyboard.press('Enter')
    await panel().getByText(MEMORY_PANEL.forgotten, { exact: true }).waitFor({ timeout: 10_000 })
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.className)).toBe('forgotten')
    await expect.poll(async () => (await myMemory()).filter((r) => r.status !== 'forgotten')).toEqual([])
    expect(await plumbingIn(page)).toEqual([])
  })

  it('closes on Escape, the address losing ?remembers=1, and returns the focus to the control that opened it', async () => {
    const page = sofia.page
    await page.keyboard.press('Escape')
    await panel().waitFor({ state: 'detached' })
    expect(new URL(page.url()).searchParams.has('remembers')).toBe(false)
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('What your twin remembers')
    await page.keyboard.press('Enter')
    await panel().waitFor()
    expect(new URL(page.url()).searchParams.get('remembers')).toBe('1')
  })

  it("reads the episodic line, the disabled lines, 'Viewed by <Name> on <date>.' after a lead's oversight read, and keeps a preference across programs", async () => {
    const token = await tenant.token('scientist')
    // An episodic note remembers a record the person decided (an audited decision of theirs, as tests/memory files it).
    const decided = { targetType: 'hypothesis', targetId: '31111111-2222-4333-8444-555555555555' }
    await stack.db.db.auditEvent.create({ data: { organizationId: tenant.organization.id, programId: tenant.program.id, action: 'hypothesis.decision', actorType: 'user', actorUserId: tenant.users.scientist.id, ...decided } })
    for (const input of [
      { programId: tenant.program.id, kind: 'episodic', summary: 'Decided the liver signal was an artefact.', sourceRef: `${decided.targetType}:${decided.targetId}` },
      { programId: tenant.program.id, kind: 'vocabulary', summary: 'Says NOAEL for the no adverse effect level.' },
    ]) {
      const kept = await gql(gateway(), KEEP, { input }, token)
      expect(kept.body.data.keepMemoryNote.__typename).toBe('MutationKeepMemoryNoteSuccess')
    }
    const read = await gql(gateway(), OVERSIGHT, { p: tenant.program.id, u: tenant.users.scientist.id }, await tenant.token('program_lead'))
    expect(read.body.data.agentMemory.nodes.length).toBeGreaterThan(0)

    const page = sofia.page
    await page.reload()
    const episodic = item('Decided the liver signal was an artefact.')
    await episodic.getByText(MEMORY_PANEL.episodicReason, { exact: true }).waitFor()
    await episodic.getByText(viewedBy('Liam Lead', today()), { exact: true }).waitFor()
    expect(await episodic.getByRole('button', { name: MEMORY_PANEL.controls.keepAcrossPrograms, exact: true }).isDisabled()).toBe(true)
    await episodic.getByText(MEMORY_PANEL.kindDoesNotTravel, { exact: true }).waitFor()
    expect(await episodic.getByRole('button', { name: MEMORY_PANEL.controls.suggestForTheRole, exact: true }).isDisabled()).toBe(true)
    await episodic.getByText(MEMORY_PANEL.suggestArrivesLater, { exact: true }).waitFor()

    const vocabulary = item('Says NOAEL for the no adverse effect level.')
    await vocabulary.getByRole('button', { name: MEMORY_PANEL.controls.keepAcrossPrograms, exact: true }).click()
    const form = vocabulary.getByRole('group', { name: MEMORY_PANEL.controls.keepAcrossPrograms })
    await form.getByRole('button', { name: MEMORY_PANEL.controls.keep, exact: true }).click()
    const aboutYou = panel().locator('section').filter({ has: page.getByRole('heading', { name: MEMORY_PANEL.regions[1] }) })
    await aboutYou.getByText(/no adverse effect level/).waitFor({ timeout: 10_000 })
    expect((await myMemory()).some((r) => r.tier === 'person')).toBe(true)
    expect(await plumbingIn(page)).toEqual([])
  })

  it('fits a 390 px wide screen with the panel open, without horizontal scrolling', async () => {
    const page = sofia.page
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload()
    await item('Decided the liver signal was an artefact.').waitFor()
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/memory-panel-390.png`, fullPage: true })
    expect(sofia.watch.pageErrors).toEqual([])
    expect(sofia.watch.consoleErrors).toEqual([])
    expect(sofia.watch.foreignRequests).toEqual([])
    expect(sofia.dialogs).toEqual([])
  })
})
