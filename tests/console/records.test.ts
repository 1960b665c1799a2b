// A record's page in real Chromium over the real stack: reached from the role home's evidence board and from a decided
// card's outcome; its contract name as the heading, the workbench role as the subtitle, its source system, versions
// and the footer exactly as the API composes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { illustrativeTenant, openConsoleAs, openProgramHome, plumbingIn, scrollsHorizontally, type ConsolePerson } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
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

const gateway = () => `${stack.current.gatewayUrl}/graphql`

describe('a record in the console', () => {
  it("opens a record from the role home's evidence board: its name as the heading, the subtitle, its source and versions", async () => {
    const rec = await writeRecord(stack.db.db, tenant, 'scientist', { recordType: 'evidence.findings', title: 'Board finding on liver weight', body: 'Liver weight rose at the high dose.', fields: { kind: 'observation', species: 'rat' } })
    sofia = await openConsoleAs(browser, stack.current.gatewayUrl, 'Sofia Scientist')
    await openProgramHome(sofia.page, PROGRAM)
    const page = sofia.page
    const board = page.getByRole('region', { name: 'My evidence board' })
    await board.getByRole('link', { name: 'Board finding on liver weight' }).click()
    await page.getByRole('heading', { level: 1, name: 'Board finding on liver weight' }).waitFor()
    expect(page.url()).toMatch(new RegExp(`/p/illustrative-program/records/${rec.id}$`))
    const home = await gql(gateway(), '{ program(slug: "illustrative-program") { workbench { name } } }', {}, await tenant.token('scientist'))
    expect(await page.getByTestId('record-subtitle').innerText()).toContain(home.body.data.program.workbench.name)
    expect(await page.getByTestId('record-source').innerText()).toBe('Source: written in this workspace')
    expect(await page.getByTestId('record-version').count()).toBe(1)
    expect(await page.getByTestId('record-version').first().innerText()).toContain('Version 1: Created by Sofia Scientist')
    await page.getByRole('heading', { level: 2, name: 'Citations' }).waitFor()
    expect(await plumbingIn(page)).toEqual([])
    await page.screenshot({ path: `${SCREENSHOTS}/record-1440.png`, fullPage: true })
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await scrollsHorizontally(page)).toBe(false)
    await page.screenshot({ path: `${SCREENSHOTS}/record-390.png`, fullPage: true })
    await page.setViewportSize({ width: 1440, height: 900 })
  }, 120_000)

  it("opens the record a decision wrote from the decided card's outcome, with the footer exactly as specified", async () => {
    const page = sofia.page
    await openProgramHome(page, PROGRAM).catch(async () => {
      await page.getByRole('link', { name: PROGRAM }).first().click()
      await page.getByRole('heading', { level: 1, name: PROGRAM }).waitFor()
    })
    await twinProposes('Exposure margin needs a note')
    const card = page.getByTestId('proposal-card').filter({ hasText: 'Exposure margin needs a note' })
    await card.waitFor({ timeout: 15_000 })
    await card.getByRole('button', { name: 'Approve', exact: true }).click()
    await card.getByRole('link', { name: 'Open the record' }).click()
    await page.getByRole('heading', { level: 1, name: 'Exposure margin needs a note' }).waitFor()
    const id = page.url().split('/').pop()!
    const api = await gql(gateway(), 'query($id: ID!) { record(id: $id) { footer history { version footer } } }', { id }, await tenant.token('scientist'))
    const footer = api.body.data.record.footer as string
    expect(footer).toMatch(/^Proposed by Sofia Scientist's twin \(agent/)
    expect(await page.getByTestId('record-footer').innerText()).toBe(footer)
    expect(await page.getByTestId('record-version').first().innerText()).toContain(api.body.data.record.history[0].footer)
    expect(await plumbingIn(page)).toEqual([])
    expect(sofia.dialogs).toEqual([])
  }, 120_000)
})
