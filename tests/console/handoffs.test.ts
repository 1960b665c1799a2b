// Hand-offs and delegations in real Chromium over the real stack: accept, decline with a reason, complete, withdraw a
// hand-off; create and revoke a delegation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { writeRecord } from '../twins/tools-helpers'

const stack = useStack()
const PROGRAM = ILLUSTRATIVE.program.name
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? '/tmp/console-screenshots'
let tenant: Tenant
let browser: Browser
let sofia: ConsolePerson

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

const gateway = () => `${stack.current.gatewayUrl}/graphql`

/** `from` hands a new record off to `toPersona` through the API, as the console's create form would. */
async function handOff(from: string, toPersona: string, title: string, toUserId?: string) {
  const rec = await writeRecord(stack.db.db, tenant, from as never, { recordType: 'evidence.findings', title, fields: { kind: 'observation', species: 'rat' } })
  const res = await gql(gateway(), `mutation($programId: ID!, $input: HandoffInput!) { createHandoff(programId: $programId, input: $input) {
    __typename ... on MutationCreateHandoffSuccess { handoff { id } } ... on Error { code message } } }`,
  { programId: tenant.program.id, input: { toPersonaKey: toPersona, ...(toUserId ? { toUserId } : {}), kind: 'review', linkedType: 'program_record', linkedId: rec.id, messageMd: `Please review ${title}.` } },
  await tenant.token(from as never))
  expect(res.body.data?.createHandoff?.__typename, JSON.stringify(res.body)).toBe('MutationCreateHandoffSuccess')
  return res.body.data.createHandoff.handoff.id as string
}
const handoffRow = (id: string) => stack.db.db.handoffRequest.findUniqueOrThrow({ where: { id } })

describe('hand-offs and delegations in the console', () => {
  it('accepts and completes one hand-off, declines another with a reason, and withdraws one the person sent', async () => {
    const toAccept = await handOff('program_lead', 'scientist', 'Accept me', tenant.users.scientist.id)
    const toDecline = await handOff('program_lead', 'scientist', 'Decline me', tenant.users.scientist.id)
    const toWithdraw = await handOff('scientist', 'program_lead', 'Withdraw me', tenant.users.program_lead.id)
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, PROGRAM)
    const page = sofia.page
    await page.getByRole('link', { name: 'Hand-offs and delegations' }).click()
    await page.getByRole('heading', { level: 1, name: 'Hand-offs and delegations' }).waitFor()
    const card = (text: string) => page.getByTestId('handoff').filter({ hasText: text })
    await card('Please review Accept me.').waitFor({ timeout: 10_000 })

    await card('Please review Accept me.').getByRole('button', { name: 'Accept' }).click()
    await expect.poll(() => card('Please review Accept me.').getByTestId('handoff-status').innerText()).toBe('Accepted')
    await card('Please review Accept me.').getByRole('button', { name: 'Mark complete' }).click()
    await expect.poll(() => card('Please review Accept me.').getByTestId('handoff-status').innerText()).toBe('Done')
    expect((await handoffRow(toAccept)).status).toBe('done')

    await card('Please review Decline me.').getByRole('button', { name: 'Decline' }).click()
    await card('Please review Decline me.').getByLabel('Why you decline').fill('Not my study.')
    await card('Please review Decline me.').getByRole('button', { name: 'Decline this hand-off' }).click()
    await expect.poll(() => card('Please review Decline me.').getByTestId('handoff-status').innerText()).toBe('Declined')
    const declined = await handoffRow(toDecline)
    expect(declined.status).toBe('declined')
    expect(declined.reason).toBe('Not my study.')

    await card('Please review Withdraw me.').getByRole('button', { name: 'Withdraw' }).click()
    await expect.poll(() => card('Please review Withdraw me.').getByTestId('handoff-status').innerText()).toBe('Withdrawn')
    expect((await handoffRow(toWithdraw)).status).toBe('withdrawn')
    expect(await plumbingIn(page)).toEqual([])
    await page.screenshot({ path: `${SCREENSHOTS}/handoffs-1440.png`, fullPage: true })
  }, 120_000)

  it('creates a delegation to a colleague and revokes it', async () => {
    const page = sofia.page
    await page.getByLabel('Who decides for you').selectOption({ label: 'Liam Lead' })
    await page.getByLabel('For how long').selectOption({ label: '7 days' })
    await page.getByRole('button', { name: 'Delegate' }).click()
    const given = page.getByTestId('delegations-given')
    await given.getByText(/Liam Lead decides for you until/).waitFor({ timeout: 10_000 })
    const row = await stack.db.db.delegation.findFirstOrThrow({ where: { userId: tenant.users.scientist.id } })
    expect(row.delegateUserId).toBe(tenant.users.program_lead.id)
    expect(row.revokedAt).toBeNull()

    await page.getByRole('button', { name: 'Revoke the delegation to Liam Lead' }).click()
    await page.getByTestId('no-delegation').waitFor({ timeout: 10_000 })
    expect((await stack.db.db.delegation.findUniqueOrThrow({ where: { id: row.id } })).revokedAt).not.toBeNull()
    expect(await plumbingIn(page)).toEqual([])
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/handoffs-390.png`, fullPage: true })
    expect(sofia.dialogs).toEqual([])
  }, 60_000)
})
