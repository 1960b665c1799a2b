// The "Trail verified" line (issue 35) in real Chromium over the real stack: a decided card says the trail is not
// verified yet (recorded after the last check); after the daily verification, the record's history says when the
// trail verified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { verifyEveryChain } from '../../jobs/tasks/audit_verify'
import { connect, runningRun, writeRecord } from '../twins/tools-helpers'

const stack = useStack()
const PROGRAM = ILLUSTRATIVE.program.name
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

describe('the trail line', () => {
  it('reads "not verified yet" on a decided card, then "Trail verified <when>" on the record once the daily check ran', async () => {
    const run = await runningRun(stack.db.db, tenant, 'scientist')
    const basis = await writeRecord(stack.db.db, tenant, 'scientist', { recordType: 'evidence.findings', title: 'Basis for the trail', fields: { kind: 'observation', species: 'rat' } })
    const client = await connect(stack.current.toolsUrl, run)
    try {
      const res = await client.call('evidence.propose_finding', {
        change: { kind: 'create', title: 'Trail finding on body weight', fields: { kind: 'interpretation' } }, basisRecordIds: [basis.id], draft: 'The twin\'s reading.',
      }, { duty: 'blocker_scan' })
      expect(res.ok).toBe(true)
    } finally {
      await client.close()
    }
    // A verification before the decision: the decision's entry comes after it.
    expect(await verifyEveryChain({ db: stack.db.db })).toMatchObject({ broken: 0 })

    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    const page = sofia.page
    await openProgramHome(page, PROGRAM)
    const card = page.getByTestId('proposal-card').filter({ hasText: 'Trail finding on body weight' })
    await card.waitFor({ timeout: 15_000 })
    await card.getByRole('button', { name: 'Approve', exact: true }).click()
    await card.getByTestId('trail-line').waitFor()
    expect(await card.getByTestId('trail-line').innerText()).toMatch(/^Trail not verified yet: recorded after the last check \(.+\)\.$/)

    expect(await verifyEveryChain({ db: stack.db.db })).toMatchObject({ broken: 0 })
    await card.getByRole('link', { name: 'Open the record' }).click()
    await page.getByRole('heading', { level: 1, name: 'Trail finding on body weight' }).waitFor()
    const line = page.getByRole('region', { name: 'Versions' }).getByTestId('trail-line')
    await line.waitFor()
    expect(await line.innerText()).toMatch(/^Trail verified .*\d{4}.*\.$/)
    expect(await plumbingIn(page)).toEqual([])
  }, 180_000)
})
