// The decision card in real Chromium shows what evidence.assertion_lint found before the twin filed: each interpretation
// of the draft without a citation, and a plain line when every interpretation is cited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { connect, runningRun } from '../twins/tools-helpers'

const stack = useStack()
let tenant: Tenant
let browser: Browser
let sofia: ConsolePerson

beforeAll(async () => {
  const seed = await seedIllustrative(stack.db.db)
  await seedIllustrativeTwins(stack.db.db, seed)
  tenant = illustrativeTenant(seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await sofia?.close()
  await browser?.close()
})

async function twinProposes(title: string, draft: string) {
  const run = await runningRun(stack.db.db, tenant, 'scientist')
  const client = await connect(stack.current.toolsUrl, run)
  try {
    const res = await client.call('evidence.propose_finding', { change: { kind: 'create', title, fields: { kind: 'interpretation' } }, draft })
    expect(res.ok).toBe(true)
  } finally {
    await client.close()
  }
}

describe('the decision card', () => {
  it('lists the uncited interpretations the assertion lint flagged, and says so when all are cited', async () => {
    await twinProposes('Liver enzymes', 'ALT rose twofold at 30 mg/kg [1]. This suggests hepatocellular injury.')
    await twinProposes('Kidney weight', 'Kidney weight rose 12 % [1]. This suggests adaptive hypertrophy [2].')
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, ILLUSTRATIVE.program.name)
    const card = (t: string) => sofia.page.getByTestId('proposal-card').filter({ hasText: t })
    await card('Liver enzymes').getByTestId('assertion-lint').waitFor({ timeout: 15_000 })
    const flagged = await card('Liver enzymes').getByTestId('assertion-lint').innerText()
    expect(flagged).toContain('Uncited interpretations: 1')
    expect(flagged).toContain('This suggests hepatocellular injury.')
    expect(flagged).not.toContain('ALT rose twofold')
    expect(await card('Kidney weight').getByTestId('assertion-lint').innerText()).toBe('Citation check: every interpretation is cited.')
  }, 120_000)
})
