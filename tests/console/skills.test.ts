// Skills in real Chromium over the real stack: the dose projection and the NCA extraction with unit-aware inputs, a
// refused unit shown beside its field, and the result's method line and 'How this was computed' with every value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { runSkillSync } from '../../domain/skills'
import { SKILLS } from '../../core/text'
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

  it('reads every dose output in words with its unit, says "none given" in words, and answers an empty submit in the words of the form', async () => {
    const page = sofia.page
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.reload()
    const region = page.getByRole('region', { name: 'First-in-human dose projection' })
    const form = page.getByTestId('dose-form')
    // An empty submit: the dose is named as the form names it, never a path or 'received null'.
    await form.getByRole('button', { name: 'Project the dose' }).click()
    const dose = form.getByLabel('Dose', { exact: true })
    await expect.poll(() => dose.getAttribute('aria-describedby'), { timeout: 10_000 }).toBeTruthy()
    const doseError = await page.locator(`[id="${(await dose.getAttribute('aria-describedby'))!}"]`).innerText()
    expect(doseError).toBe('Enter the dose of NOAEL 1 as a number.')
    expect(await region.innerText()).not.toMatch(/received null|noael\[0\]|Invalid input/)

    await dose.fill('50')
    await form.getByLabel('Where this NOAEL comes from').fill('tox-report:rat#noael')
    await form.getByRole('button', { name: 'Project the dose' }).click()
    const result = region.getByTestId('skill-result')
    await result.waitFor({ timeout: 15_000 })
    const text = await result.innerText()
    expect(text).toContain('Maximum recommended starting dose\n0.81 mg/kg')
    expect(text).toContain('Human equivalent dose, from the rat\n8.1 mg/kg')
    expect(text).toContain('Why another species was chosen\nnone given')
    expect(text).toContain('Safety factor\n10\n')
    // No skill key, no unit of 1, no bare 'none', no internal reference.
    expect(text).not.toMatch(/\bmrsd\b|\bhed\b|\bcl f\b|selection rationale|issue \d+/m)
    expect(text).not.toMatch(/\d 1$|: none$|^none$/m)
    expect(await plumbingIn(page)).toEqual([])
  }, 60_000)

  it('takes concentrations pasted from a spreadsheet (tab separated, a header row) and shows the linear and semi-log plot, terminal points marked, beside the parameters', async () => {
    const page = sofia.page
    const form = page.getByTestId('nca-form')
    const pasted = ['Time (h)\tConcentration (mg/L)', ...THEOPH_SUBJECT1_ROWS.map((r) => `${r.time}\t${r.conc}`)].join('\n')
    await form.getByLabel(/^Concentrations/).fill(pasted)
    await form.getByLabel('Dose at time zero').fill('320')
    await form.getByRole('button', { name: 'Extract the parameters' }).click()
    const region = page.getByRole('region', { name: 'Pharmacokinetic parameters (NCA)' })
    const result = region.getByTestId('skill-result')
    await result.waitFor({ timeout: 15_000 })
    const expected = runSkillSync('tox.pk_parameter_extraction', { rows: THEOPH_SUBJECT1_ROWS, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 320, unit: 'mg' }, route: 'oral' })
    const profile = expected.tables!.profile.rows
    const inFit = profile.filter((r) => r.in_lambda_z.value === true).length
    expect(inFit).toBeGreaterThanOrEqual(3)
    for (const scale of ['linear', 'log']) {
      const plot = result.getByTestId(`nca-plot-${scale}`)
      await plot.waitFor()
      expect(await plot.locator('[data-in-fit="true"]').count()).toBe(inFit)
      expect(await plot.getByRole('img').getAttribute('aria-labelledby')).toBeTruthy()
    }
    expect(await result.getByTestId('nca-plot-linear').locator('[data-in-fit]').count()).toBe(profile.length)
    const table = result.getByTestId('nca-parameters')
    const rows = await table.locator('tbody tr').allInnerTexts()
    expect(rows).toContain(`Apparent clearance (CL/F)\t${expected.outputs.cl_f.display!.replace(/ L\/h$/, '')}\tL/h`)
    expect(rows.some((r) => r.startsWith('Peak concentration (Cmax)\t'))).toBe(true)
    expect(rows.find((r) => r.startsWith('Area under the curve to Tlast (AUClast)'))).toMatch(/\th·mg\/L$/)
    expect(await result.innerText()).not.toMatch(/\bcl f\b|\bcl_f\b|linear_up_log_down|issue \d+/i)
    // The plot is beside the table at 1440 px.
    const [plotBox, tableBox] = [await result.locator('.nca-plots').boundingBox(), await table.boundingBox()]
    expect(tableBox!.x).toBeGreaterThan(plotBox!.x + plotBox!.width - 1)
    await page.screenshot({ path: `${SCREENSHOTS}/skills-nca-plot-1440.png`, fullPage: true })
    await result.screenshot({ path: `${SCREENSHOTS}/skills-nca-result-1440.png` })
    // A cell that is not a number is refused in words with its line.
    await form.getByLabel(/^Concentrations/).fill('0,0\n1,abc\n2,3')
    await form.getByRole('button', { name: 'Extract the parameters' }).click()
    await form.getByText('Line 2: the concentration “abc” is not a number (write BLQ for a sample below the limit).').waitFor()
    await page.setViewportSize({ width: 390, height: 844 })
    await form.getByLabel(/^Concentrations/).fill(pasted.replace(/\t/g, ','))
    await form.getByRole('button', { name: 'Extract the parameters' }).click()
    await result.getByTestId('nca-plot-log').waitFor({ timeout: 15_000 })
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/skills-nca-plot-390.png`, fullPage: true })
    expect(await plumbingIn(page)).toEqual([])
    expect(sofia.watch.consoleErrors).toEqual([])
    expect(sofia.watch.pageErrors).toEqual([])
  }, 90_000)
})
