// The rail of the role home in real Chromium over the real stack: the worn workbench role's products first, the rest
// under 'All records', Setup under 'More' for a person who may change it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { WORKBENCH } from '../../core/text'
import { workbenchRole } from '../../core/identity'

const stack = useStack()
const PROGRAM = ILLUSTRATIVE.program.name
let tenant: Tenant
let browser: Browser
let sofia: ConsolePerson
let liam: ConsolePerson

beforeAll(async () => {
  const db = stack.db.db
  const seed = await seedIllustrative(db)
  await seedIllustrativeTwins(db, seed)
  tenant = illustrativeTenant(seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await sofia?.close()
  await liam?.close()
  await browser?.close()
})

const railItems = async (person: ConsolePerson, testId: string) =>
  (await person.page.getByTestId(testId).count()) ? person.page.getByTestId(testId).locator('li').allInnerTexts() : []

describe('the rail', () => {
  it("puts the worn workbench role's products first and the rest under 'All records'", async () => {
    const set = await gql(`${stack.current.gatewayUrl}/graphql`, 'mutation($p: ID!) { updateMySettings(input: { workbenchRoles: [{ programId: $p, workbenchRoleKey: "dmpk_tox_scientist" }] }) { __typename } }',
      { p: tenant.program.id }, await tenant.token('scientist'))
    expect(set.body.data?.updateMySettings?.__typename).toBe('MutationUpdateMySettingsSuccess')
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, PROGRAM)
    const nav = sofia.page.getByRole('navigation', { name: 'Program areas' })
    await nav.waitFor()
    const promoted = await railItems(sofia, 'rail-promoted')
    expect(promoted).toEqual(workbenchRole('dmpk_tox_scientist')!.rail.map((p) => p[0].toUpperCase() + p.slice(1)))
    const rest = await railItems(sofia, 'rail-all-records')
    expect(rest.length).toBeGreaterThan(0)
    for (const p of rest) expect(promoted).not.toContain(p)
    expect(await nav.getByText(WORKBENCH.allRecords, { exact: true }).count()).toBe(1)
    // A scientist may not change the program's setup: no 'More'.
    expect(await railItems(sofia, 'rail-more')).toEqual([])
    expect(await plumbingIn(sofia.page)).toEqual([])
  }, 120_000)

  it("shows Setup under 'More' for the program lead, who may change it", async () => {
    liam = await openConsoleAs(browser, stack.current.gatewayUrl, 'Liam Lead')
    await openProgramHome(liam.page, PROGRAM)
    await liam.page.getByRole('navigation', { name: 'Program areas' }).waitFor()
    expect(await railItems(liam, 'rail-more')).toContain('Setup')
    expect(await liam.page.getByRole('navigation', { name: 'Program areas' }).getByText(WORKBENCH.more, { exact: true }).count()).toBe(1)
  }, 60_000)
})
