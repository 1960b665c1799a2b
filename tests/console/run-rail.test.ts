// The run rail in real Chromium over the real stack (issue 40, item 6): Sofia's twin searches the open literature over
// MCP against the fake sources while a source's budget runs out, and the twin panel lists the run's steps in order:
// the query policy step by step, 'budget exhausted for source X, retry after N s' with the source in words, and the
// refusals with their reasons; a step taken while the panel is open shows once the run's status changes (live).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { finishRun, seedIllustrativeTwins } from '../../domain/twins'
import { SourceBudget } from '../../domain/literature'
import { connect, runningRun } from '../twins/tools-helpers'
import { setWindow, useFakeLiterature } from '../literature/helpers'

const stack = useStack()
const db = () => stack.db.db
useFakeLiterature(db)
const PROGRAM = ILLUSTRATIVE.program.name
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? '/tmp/console-screenshots'
let tenant: Tenant
let browser: Browser
let sofia: ConsolePerson

beforeAll(async () => {
  const seed = await seedIllustrative(db())
  await seedIllustrativeTwins(db(), seed)
  tenant = illustrativeTenant(seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await sofia?.close()
  await browser?.close()
})

async function exhaust(source: 'literature_index' | 'citation_graph') {
  await setWindow(db(), source, 1, 60)
  await new SourceBudget(db(), source, tenant.organization.id).take().catch(() => { /* already used up */ })
}

const rail = () => sofia.page.getByTestId('twin-panel').getByTestId('run-rail')
const railItems = () => rail().locator(':scope > ol > li')

describe('the run rail in the twin panel', { timeout: 90_000 }, () => {
  it("lists the latest run's steps in order, with the query policy, 'budget exhausted for source …, retry after N s' and refusals", async () => {
    const r = await runningRun(db(), tenant, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    try {
      client.nextTurn()
      expect((await client.call('evidence.search_literature', { query: 'kinase inhibitor', first: 3 })).ok).toBe(true)
      await exhaust('citation_graph')
      expect((await client.call('evidence.search_literature', { query: 'hERG', first: 3 })).ok).toBe(true)
      await exhaust('literature_index')
      expect((await client.call('evidence.search_literature', { query: 'allosteric', first: 3 })).ok).toBe(false)
    } finally {
      await client.close()
    }

    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, PROGRAM)
    await rail().getByRole('heading', { level: 3, name: 'Latest run: running' }).waitFor()
    await expect.poll(() => railItems().count()).toBe(3)
    const [first, second, third] = await railItems().allInnerTexts()
    expect(first).toMatch(/^Searched the open literature at \d{2}:\d{2}, done\n/)
    expect(first).toContain('Searched for “kinase inhibitor”: 3 works found.')
    expect(first).toMatch(/search the European literature index first: \d+ records/)
    expect(first).toContain('fetch full text only for licences cc0, cc_by and cc_by_sa: ')
    expect(second).toMatch(/use the citation-graph service for citations and open-access location: budget exhausted for source citation-graph service, retry after \d+ s/)
    expect(third).toMatch(/^Searched the open literature at \d{2}:\d{2}, refused\n/)
    const reason = railItems().nth(2).getByTestId('run-step-reason')
    expect(await reason.innerText()).toMatch(/^budget exhausted for source European literature index, retry after \d+ s$/)
    expect(await reason.getAttribute('class')).toBe('problem')
    await sofia.page.screenshot({ path: `${SCREENSHOTS}/run-rail-1440.png`, fullPage: true })
    expect(await plumbingIn(sofia.page)).toEqual([])

    // Live: a refused step taken while the panel is open shows once the run ends (the panel hears the run's change).
    const again = await connect(stack.current.toolsUrl, r)
    again.nextTurn() // the same turn as before: its three queries are used
    try {
      expect(await again.call('evidence.search_literature', { query: 'kinase' })).toMatchObject({ ok: false, error: { code: 'evidence_query_budget_exhausted' } })
    } finally {
      await again.close()
    }
    await finishRun(db(), r.run, 'succeeded', { outcome: { proposals_filed: 0 } })
    await rail().getByRole('heading', { level: 3, name: 'Latest run: finished' }).waitFor()
    await expect.poll(() => railItems().count()).toBe(4)
    expect(await railItems().nth(3).getByTestId('run-step-reason').innerText()).toBe('This turn has used its 3 literature queries.')
    expect(await plumbingIn(sofia.page)).toEqual([])
  })

  it('fits a 390 px wide screen without horizontal scrolling, with no console error', async () => {
    const page = sofia.page
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload()
    await expect.poll(() => railItems().count()).toBe(4)
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/run-rail-390.png`, fullPage: true })
    expect(sofia.watch.pageErrors).toEqual([])
    expect(sofia.watch.consoleErrors).toEqual([])
    expect(sofia.dialogs).toEqual([])
  })
})
