// The inbox beyond one decision, in real Chromium over the real stack: a batch approval of explicitly selected
// proposals (the count and the limit stated, decideBatch underneath), snooze, dismiss, feedback, and an item routed
// under delegation with its routing line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { fileInboxItem } from '../../domain/inbox'
import { connect, runningRun, writeRecord } from '../twins/tools-helpers'

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

/** The scientist's twin files one finding proposal over MCP, as a twin run does. */
async function twinProposes(title: string) {
  const run = await runningRun(stack.db.db, tenant, 'scientist')
  const basis = await writeRecord(stack.db.db, tenant, 'scientist', { recordType: 'evidence.findings', title: `Basis for ${title}`, fields: { kind: 'observation', species: 'rat' } })
  const client = await connect(stack.current.toolsUrl, run)
  try {
    const res = await client.call<{ proposalId: string; inboxItemId: string }>('evidence.propose_finding', {
      change: { kind: 'create', title, fields: { kind: 'interpretation' } }, basisRecordIds: [basis.id], draft: `The twin's reading: ${title}.`,
    }, { duty: 'blocker_scan' })
    expect(res.ok).toBe(true)
    return (res as { value: { proposalId: string; inboxItemId: string } }).value
  } finally {
    await client.close()
  }
}

const itemStatus = async (id: string) => (await stack.db.db.inboxItem.findUniqueOrThrow({ where: { id } })).status

describe('the inbox in the console', () => {
  const filed: Record<string, { proposalId: string; inboxItemId: string }> = {}

  it('approves the explicitly selected proposals together, stating the count and the limit, and leaves the rest open', async () => {
    for (const title of ['Batch one', 'Batch two', 'Batch three']) filed[title] = await twinProposes(title)
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, PROGRAM)
    const page = sofia.page
    const card = (t: string) => page.getByTestId('proposal-card').filter({ hasText: t })
    await card('Batch three').waitFor({ timeout: 15_000 })
    const count = page.getByTestId('batch-count')
    expect(await count.innerText()).toContain('0 of at most 10 selected')
    expect(await page.getByRole('button', { name: /^Approve .*selected/ }).isDisabled()).toBe(true)

    await page.getByRole('checkbox', { name: 'Select for batch approval: Batch one' }).check()
    await page.getByRole('checkbox', { name: 'Select for batch approval: Batch two' }).check()
    expect(await count.innerText()).toContain('2 of at most 10 selected')
    await page.getByRole('button', { name: 'Approve 2 selected proposals' }).click()

    for (const t of ['Batch one', 'Batch two']) {
      await card(t).getByTestId('record-footer').waitFor({ timeout: 10_000 })
      expect(await card(t).innerText()).toContain('Approved')
    }
    const token = await tenant.token('scientist')
    const status = async (t: string) => (await gql(`${stack.current.gatewayUrl}/graphql`, 'query($id: ID!) { proposal(id: $id) { status } }', { id: filed[t].proposalId }, token)).body.data?.proposal?.status
    expect(await status('Batch one')).toBe('decided')
    expect(await status('Batch two')).toBe('decided')
    expect(await status('Batch three')).toBe('open')
    // One batch approval (decideBatch), not two separate decisions.
    expect(await stack.db.db.runInterrupt.count({ where: { kind: 'batch_approval' } })).toBe(1)
    expect(await plumbingIn(page)).toEqual([])
  }, 120_000)

  it('snoozes a proposal by an inline form, and it leaves the list until then', async () => {
    const page = sofia.page
    const card = page.getByTestId('proposal-card').filter({ hasText: 'Batch three' })
    await card.getByRole('button', { name: 'Snooze' }).click()
    await card.getByLabel('Snooze for').selectOption({ label: 'Three days' })
    await card.getByRole('button', { name: 'Snooze this item' }).click()
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(0)
    expect(await itemStatus(filed['Batch three'].inboxItemId)).toBe('snoozed')
  })

  it('records feedback and dismisses an item that needs no decision; an item routed under delegation reads its routing line', async () => {
    const db = stack.db.db
    const base = { organizationId: tenant.organization.id, programId: tenant.program.id, userId: tenant.users.scientist.id, sourceType: 'record', sourceId: tenant.program.id }
    const info = await fileInboxItem(db, { ...base, kind: 'information', title: 'The NOAEL table was updated' })
    const routed = await fileInboxItem(db, { ...base, kind: 'information', title: 'Routed note for review', delegatedFromUserId: tenant.users.program_lead.id })
    const page = sofia.page
    const item = (t: string) => page.getByTestId('inbox-item').filter({ hasText: t })
    await item('Routed note for review').waitFor({ timeout: 15_000 })
    expect(await item('Routed note for review').innerText()).toContain('Delegated to you by Liam Lead. You decide in your own right.')
    // Each card says what its kind asks (issue 29, item 6); a signature item is signed where it lives, never dismissed.
    expect(await item('The NOAEL table was updated').getByTestId('inbox-item-kind').innerText()).toBe('For your information')
    await fileInboxItem(db, { ...base, kind: 'signature', sourceType: 'sop', title: 'Local SOP waiting for approval: SOP-LAB-001 Weighing records' })
    await item('SOP-LAB-001').waitFor({ timeout: 15_000 })
    expect(await item('SOP-LAB-001').getByTestId('inbox-item-kind').innerText()).toBe('Waiting for your signature: it resolves when you sign it where it lives')
    expect(await item('SOP-LAB-001').getByRole('button', { name: 'Dismiss' }).count()).toBe(0)

    const helpful = item('The NOAEL table was updated').getByRole('button', { name: 'Helpful' })
    await helpful.click()
    await expect.poll(() => helpful.getAttribute('aria-pressed')).toBe('true')
    await expect.poll(async () => (await db.inboxItem.findUniqueOrThrow({ where: { id: info.id } })).feedback).toBe('helpful')

    await item('The NOAEL table was updated').getByRole('button', { name: 'Dismiss' }).click()
    await expect.poll(() => item('The NOAEL table was updated').count(), { timeout: 10_000 }).toBe(0)
    expect(await itemStatus(info.id)).toBe('dismissed')
    expect(await itemStatus(routed.id)).toBe('open')
    expect(await plumbingIn(page)).toEqual([])
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-actions-1440.png`, fullPage: true })

    await page.setViewportSize({ width: 390, height: 844 })
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-actions-390.png`, fullPage: true })
    expect(sofia.dialogs).toEqual([])
    expect(sofia.watch.consoleErrors ?? []).toEqual([])
  })

  it('exposes who an item was routed from through the API', async () => {
    const res = await gql(`${stack.current.gatewayUrl}/graphql`, '{ myInbox(first: 20, status: [open]) { nodes { title delegatedFrom { name } } } }', {}, await tenant.token('scientist'))
    const routed = (res.body.data as any).myInbox.nodes.find((n: any) => n.title === 'Routed note for review')
    expect(routed.delegatedFrom).toEqual({ name: 'Liam Lead' })
  })
})
