// The oversight screen (issue 34, item 6) in real Chromium over the real stack: a program lead reaches it from the
// role home and sees every part (twins with their evaluation and configuration, the board, decision metrics, QA
// summaries, twin defaults), pauses someone's twin with a reason and saves the defaults; a quality reviewer sees the
// parts program.twins.read and program.audit.read give, with no pause and no defaults; a scientist is offered no link
// and reads why. The skill results with the NCA plot join the same screenshot set. Each screen passes the web checks at 1440 and 390 px (errors, axe, plumbing words, no sideways scroll).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { checkScreen, watchScreens } from '../helpers/web-checks'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'

const stack = useStack()
const base = () => stack.current.gatewayUrl
const db = () => stack.db.db
const PROGRAM = ILLUSTRATIVE.program
let browser: Browser
let seed: Awaited<ReturnType<typeof seedIllustrative>>
const opened: BrowserContext[] = []

beforeAll(async () => {
  seed = await seedIllustrative(db())
  await seedIllustrativeTwins(db(), seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  for (const c of opened) await c.close().catch(() => {})
  await browser?.close()
})

async function signedIn(name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  opened.push(context)
  const page = await context.newPage()
  await watchScreens(page)
  await page.goto(`${base()}/sign-in`)
  await page.getByRole('button', { name: new RegExp(`^${name}\\b`) }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  return page
}

const userId = (email: string) => db().user.findFirstOrThrow({ where: { email } }).then((u) => u.id)

describe('the oversight screen', { timeout: 120_000 }, () => {
  it('takes a program lead from the role home to every part of oversight; they pause a twin with a reason and save the twin defaults', async () => {
    const page = await signedIn('Liam Lead')
    await page.goto(`${base()}/p/${PROGRAM.slug}/home`)
    await page.getByRole('link', { name: 'Oversight', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Oversight' }).waitFor()
    for (const part of ['Twins', 'Program board', 'Decision metrics', 'QA oversight summaries', 'Twin defaults for this program']) {
      await page.getByRole('heading', { level: 2, name: part }).waitFor()
    }
    const sofias = page.getByTestId('oversight-twin').filter({ hasText: "Sofia Scientist's twin" })
    await sofias.getByText(/^Active\.$/).waitFor()
    expect(await sofias.innerText()).toMatch(/Duties\s+Blocker scan/)
    expect(await sofias.getByTestId('oversight-evaluation').innerText()).toMatch(/^Last 7 days: 0 proposals filed, 0 approved unchanged/)
    expect(await page.getByTestId('oversight-board').innerText()).toContain('Twin')
    await checkScreen(page, 'oversight-lead', { primaryAction: page.getByRole('button', { name: 'Save the defaults' }) })

    // Pause Sofia's twin: a reason is asked for and reaches her; the twin is paused by a manager.
    await sofias.getByRole('button', { name: 'Pause…' }).click()
    await sofias.getByRole('button', { name: 'Pause the twin' }).click()
    await sofias.getByRole('alert').waitFor()
    expect(await sofias.getByRole('alert').innerText()).toMatch(/reason/i)
    await sofias.getByLabel(/Why you pause it/).fill('Reviewing its duties <2 days & its budget>')
    await sofias.getByRole('button', { name: 'Pause the twin' }).click()
    await sofias.getByText('Paused, by a manager.').waitFor()
    await sofias.getByText('Only Sofia Scientist can resume it.').waitFor()
    const twin = await db().twinDefinition.findFirstOrThrow({ where: { userId: await userId('scientist@illustrative.example'), programId: seed.program.id } })
    expect(twin).toMatchObject({ status: 'paused', pausedReason: 'manage' })
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'twin.pause', targetId: twin.id }, orderBy: { entrySeq: 'desc' } })
    expect(audit.details).toMatchObject({ note: 'Reviewing its duties <2 days & its budget>' })

    // The program's twin defaults, with a reason (recorded).
    const defaults = page.getByTestId('oversight-defaults')
    await defaults.getByLabel('Pre-read').check()
    await defaults.getByLabel('Tool calls a month').fill('400')
    await defaults.getByRole('button', { name: 'Save the defaults' }).click()
    await defaults.getByRole('alert').waitFor()
    await defaults.getByLabel(/Why you change them/).fill('Fewer calls while we review')
    await defaults.getByRole('button', { name: 'Save the defaults' }).click()
    await defaults.getByTestId('defaults-saved').waitFor()
    const program = await db().program.findUniqueOrThrow({ where: { id: seed.program.id } })
    expect((program.settings as { twin_defaults: unknown }).twin_defaults).toMatchObject({ budget_tool_calls_month: 400 })
    expect(((program.settings as { twin_defaults: { duties: string[] } }).twin_defaults.duties)).toContain('pre_read')
  })

  it('shows a quality reviewer the board, the twins, the metrics and the QA summaries, with no pause and no defaults', async () => {
    const page = await signedIn('Quinn Quality')
    await page.goto(`${base()}/p/${PROGRAM.slug}/home`)
    await page.getByRole('link', { name: 'Oversight', exact: true }).click()
    for (const part of ['Twins', 'Program board', 'Decision metrics', 'QA oversight summaries']) {
      await page.getByRole('heading', { level: 2, name: part }).waitFor()
    }
    expect(await page.getByRole('heading', { level: 2, name: 'Twin defaults for this program' }).count()).toBe(0)
    const others = page.getByTestId('oversight-twin').filter({ hasNotText: 'Your twin' })
    expect(await others.getByRole('button', { name: 'Pause…' }).count()).toBe(0)
    await checkScreen(page, 'oversight-quality-reviewer', { primaryAction: page.getByRole('heading', { level: 1, name: 'Oversight' }) })
  })

  it('offers a scientist no oversight link, and tells them why when they open its address', async () => {
    const page = await signedIn('Sofia Scientist')
    await page.goto(`${base()}/p/${PROGRAM.slug}/home`)
    await page.getByRole('link', { name: 'Skills', exact: true }).waitFor()
    expect(await page.getByRole('link', { name: 'Oversight', exact: true }).count()).toBe(0)
    await page.goto(`${base()}/p/${PROGRAM.slug}/oversight`)
    await page.getByTestId('oversight-not-permitted').waitFor()
    expect(await page.getByRole('heading', { level: 2 }).count()).toBe(0)
    await checkScreen(page, 'oversight-scientist', { primaryAction: page.getByRole('link', { name: PROGRAM.name }) })
  })
})

describe('the skill results in the screenshot set', { timeout: 120_000 }, () => {
  it('passes the web checks with a dose projection and an NCA result (plot and parameters) on screen', async () => {
    const page = await signedIn('Sofia Scientist')
    await page.goto(`${base()}/p/${PROGRAM.slug}/skills`)
    const dose = page.getByTestId('dose-form')
    await dose.getByLabel('Dose', { exact: true }).fill('50')
    await dose.getByLabel('Where this NOAEL comes from').fill('tox-report:rat#noael')
    await dose.getByRole('button', { name: 'Project the dose' }).click()
    await page.getByRole('region', { name: 'First-in-human dose projection' }).getByTestId('skill-result').waitFor()
    const nca = page.getByTestId('nca-form')
    await nca.getByLabel(/^Concentrations/).fill(['Time (h),Concentration (mg/L)', '0,0.74', '0.25,2.84', '0.57,6.57', '1.12,10.5', '2.02,9.66', '3.82,8.58', '5.1,8.36', '7.03,7.47', '9.05,6.89', '12.12,5.94', '24.37,3.28'].join('\n'))
    await nca.getByLabel('Dose at time zero').fill('320')
    await nca.getByRole('button', { name: 'Extract the parameters' }).click()
    await page.getByTestId('nca-plot-log').waitFor()
    await checkScreen(page, 'skills-results-with-plot', { primaryAction: nca.getByRole('button', { name: 'Extract the parameters' }) })
  })
})
