// Skills in real Chromium over the real stack: the dose projection and the NCA extraction with unit-aware inputs, a
// refused unit shown beside its field, and the result's method line and 'How this was computed' with every value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import { ILLUSTRATIVE } from '../../core/seed'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../subgraphs/twins/domain/twins'
import { runSkillSync } from '../../subgraphs/twins/domain/skills'
import { SKILLS } from '../../core/copy'
import { THEOPH_SUBJECT1_ROWS } from '../skills/fixtures/theoph-subject1'

const stack = useStack()
const PROGRAM = ILLUSTRATIVE.program.name
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? '/tmp/console-screenshots'
let browser: Browser
let sofia: ConsolePerson

beforeAll(async () => {
  const db = stack.db.db
  const seed = await seedIllustrative(db)
  await seedIllustrativeTwins(db, seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await sofia?.close()
  await browser?.close()
})

const METHOD_LINE = /^Method: .+ \(.+, retrieved .+\), version \d+$/

describe('skills in the console', () => {
  it('projects a first-in-human dose from a rat NOAEL: the method line and every intermediate value of How this was computed', async () => {
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, PROGRAM)
    const page = sofia.page
    await page.getByRole('link', { name: 'Skills', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Skills' }).waitFor()
    const form = page.getByTestId('dose-form')
    await form.getByLabel('Species').selectOption('rat')
    await form.getByLabel('Dose', { exact: true }).fill('50')
    await form.getByLabel('Dose unit').fill('mcg/kg')
    await form.getByLabel('Where this NOAEL comes from').fill('tox-report:rat#noael')
    await form.getByRole('button', { name: 'Project the dose' }).click()
    // The refused unit is described beside its own field.
    const unit = form.getByLabel('Dose unit')
    await expect.poll(() => unit.getAttribute('aria-describedby'), { timeout: 10_000 }).toBeTruthy()
    const describedBy = (await unit.getAttribute('aria-describedby'))!
    const unitError = page.locator(`[id="${describedBy}"]`)
    expect((await unitError.innerText()).length).toBeGreaterThan(0)
    expect(await unit.evaluate((el, id) => el.parentElement!.querySelector(`[id="${id}"]`) !== null, describedBy)).toBe(true)

    await unit.fill('mg/kg')
    await form.getByRole('button', { name: 'Project the dose' }).click()
    const result = page.getByRole('region', { name: 'First-in-human dose projection' }).getByTestId('skill-result')
    await result.waitFor({ timeout: 15_000 })
    expect(await result.getByTestId('method-line').innerText()).toMatch(METHOD_LINE)
    await result.getByRole('heading', { name: SKILLS.howComputed }).waitFor()
    const expected = runSkillSync('tox.fih_dose_projection', { route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'tox-report:rat#noael' }] })
    expect(await result.getByTestId('intermediate-values').locator('li').count()).toBe(expected.how_computed.intermediate_values.length)
    expect(await result.innerText()).toContain('8.1 mg/kg')
    expect(await plumbingIn(page)).toEqual([])
    await page.screenshot({ path: `${SCREENSHOTS}/skills-dose-1440.png`, fullPage: true })
  }, 120_000)

  it('extracts PK parameters from a concentration table with its units, listing every intermediate value', async () => {
    const page = sofia.page
    const form = page.getByTestId('nca-form')
    await form.getByLabel(/^Concentrations/).fill(THEOPH_SUBJECT1_ROWS.map((r) => `${r.time} ${r.conc}`).join('\n'))
    await form.getByLabel('Time unit').fill('h')
    await form.getByLabel('Concentration unit').fill('mg/L')
    await form.getByLabel('Dose at time zero').fill('320')
    await form.getByLabel('Dose unit').fill('mg')
    await form.getByRole('button', { name: 'Extract the parameters' }).click()
    const result = page.getByRole('region', { name: 'Pharmacokinetic parameters (NCA)' }).getByTestId('skill-result')
    await result.waitFor({ timeout: 15_000 })
    // No guidance document backs NCA: the API's line names its basis instead of a retrieval date.
    expect(await result.getByTestId('method-line').innerText()).toMatch(/^Method: .+ \(.+\), version \d+$/)
    const expected = runSkillSync('tox.pk_parameter_extraction', { rows: THEOPH_SUBJECT1_ROWS, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 320, unit: 'mg' }, route: 'oral' })
    expect(await result.getByTestId('intermediate-values').locator('li').count()).toBe(expected.how_computed.intermediate_values.length)
    expect(await plumbingIn(page)).toEqual([])
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/skills-390.png`, fullPage: true })
    expect(sofia.dialogs).toEqual([])
  }, 60_000)
})
