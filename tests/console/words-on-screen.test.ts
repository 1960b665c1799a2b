// Issue 34, item 9, in real Chromium over the real stack: the stage gate's requirements read the API's labels ('Target
// hypothesis decided', 'FIH dose projection run'), never a type key pluralised by the console ('1 decided hypotheses')
// or a skill key ('fih dose projection'); and the one list of words that must not reach a screen knows the developers'
// 'lint' and the skills' keys, while the phrases the specification fixes stay as they are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { openConsoleAs, plumbingIn, type ConsolePerson } from '../helpers/console'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { findPlumbingWords } from '../../core/text'
import { MEMORY } from '../../core/text'

const stack = useStack()
let browser: Browser
let liam: ConsolePerson

beforeAll(async () => {
  const seed = await seedIllustrative(stack.db.db)
  await seedIllustrativeTwins(stack.db.db, seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await liam?.close()
  await browser?.close()
})

describe('words on screen', { timeout: 60_000 }, () => {
  it("reads a stage gate's requirements in the API's labels, not in type or skill keys", async () => {
    liam = await openConsoleAs(browser, stack.current.gatewayUrl, 'Liam Lead')
    await liam.page.goto(`${stack.current.gatewayUrl}/p/illustrative-program/stage-gates`)
    await liam.page.getByTestId('gate-count').first().waitFor()
    const text = await liam.page.locator('main').innerText()
    expect(text).toContain('Target hypothesis decided')
    expect(text).toContain('FIH dose projection run')
    expect(text).not.toMatch(/\b1 decided hypotheses\b|decided hypotheses|fih dose projection|A result of the/)
    expect(await plumbingIn(liam.page)).toEqual([])
  })

  it("knows 'lint' and the skills' keys as words that must not reach a screen, and leaves the fixed phrases alone", () => {
    expect(findPlumbingWords('Assertion lint: every interpretation is cited.').map((f) => f.match)).toContain('lint')
    for (const key of ['mrsd 0.81', 'hed rat', 'cl f 4.8', 'fih dose projection']) expect(findPlumbingWords(key).length, key).toBeGreaterThan(0)
    for (const words of ['Maximum recommended starting dose (MRSD)', 'FIH dose projection run', 'Apparent clearance (CL/F)', 'Citation check: every interpretation is cited.']) {
      expect(findPlumbingWords(words), words).toEqual([])
    }
    expect(findPlumbingWords(MEMORY.neverUsedToTrain)).toEqual([])
  })
})
