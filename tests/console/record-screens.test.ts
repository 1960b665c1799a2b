// Records with their content, the record lists behind the rail, and actions shown per persona (issue 34, items 4 and
// 5), in real Chromium over the real stack: a record's fields with their labels, citations with links, what each
// version changed; the rail's areas listing a program's records by type with a status filter, search and pages; a
// proposal's "Based on" lines as links; and for the viewer, the scientist, the lead and the owner, only the actions
// each may take (the stage gate's mark ready, the record's transitions, the memory button), the others explained.
// Every screen passes the web checks at 1440 and 390 pixels (checkScreen: zero console errors, axe, no plumbing word).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { useStack } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { checkScreen, watchScreens } from '../helpers/web-checks'
import { illustrativeTenant } from '../helpers/console'
import type { Tenant } from '../helpers/factories'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { contextForUser } from '../../core/jobs'
import { applyRecordChange } from '../../domain/records'
import { connect, runningRun, writeRecord } from '../twins/tools-helpers'

const stack = useStack()
const db = () => stack.db.db
const base = () => stack.current.gatewayUrl
const SLUG = ILLUSTRATIVE.program.slug
let tenant: Tenant
let browser: Browser
const opened: BrowserContext[] = []

beforeAll(async () => {
  const seed = await seedIllustrative(db())
  await seedIllustrativeTwins(db(), seed)
  tenant = illustrativeTenant(seed)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  for (const c of opened) await c.close().catch(() => {})
  await browser?.close()
})

/** A person signed in through the development sign-in page, in their own browser context, watched for the web checks. */
async function signedIn(name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  opened.push(context)
  const page = await context.newPage()
  await watchScreens(page)
  await page.goto(`${base()}/sign-in`)
  await page.getByRole('button', { name: new RegExp(`^${name}\\b`) }).click()
  await page.getByRole('heading', { level: 1, name: 'Your programs' }).waitFor()
  return page
}

const check = (page: Page, name: string, primaryAction: Locator) => checkScreen(page, name, { primaryAction })
const asLead = () => contextForUser(db(), tenant.users.program_lead.id, tenant.organization.id)

describe('a record with its content', () => {
  it('shows the fields with their labels, citations with their links, and what each version changed', async () => {
    const entry = await db().source.create({ data: { organizationId: tenant.organization.id, programId: tenant.program.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: 'E-77', title: 'Dog telemetry, day 3', url: `${base()}/no-such-page` } })
    await db().literatureCluster.create({ data: { organizationId: tenant.organization.id, clusterKey: '10.1000/qt.2020.7', title: 'QT liability of kinase inhibitors', licence: 'cc_by' } })
    const lead = await asLead()
    const milestone = await applyRecordChange(lead, { kind: 'create', programId: tenant.program.id, recordType: 'progress.milestones', title: 'GLP tox report signed', fields: { due_on: '2027-03-31' } })
    const made = await applyRecordChange(lead, {
      kind: 'create', programId: tenant.program.id, recordType: 'evidence.findings', title: 'QTc rose at the top dose',
      body: 'QTc +25 ms at 30 mg/kg; <5 ms at 10 mg/kg & below.', fields: { kind: 'result', species: 'dog', dose_mg_per_kg: 30 },
      citations: [{ kind: 'eln_entry', ref: entry.id }, { kind: 'literature_cluster', ref: '10.1000/qt.2020.7' }],
    })
    await applyRecordChange(lead, { kind: 'update', recordId: made.recordId, fields: { species: 'beagle dog' } })
    const page = await signedIn('Sofia Scientist')
    await page.goto(`${base()}/p/${SLUG}/records/${made.recordId}`)
    await page.getByRole('heading', { level: 1, name: 'QTc rose at the top dose' }).waitFor()
    const fields = page.getByTestId('record-fields')
    await fields.waitFor()
    const pairs = await fields.locator(':scope > div').evaluateAll((rows) => rows.map((r) => [r.querySelector('dt')?.textContent, r.querySelector('dd')?.textContent]))
    expect(pairs).toEqual([['Status', 'Draft'], ['Kind of finding', 'Result'], ['Species', 'beagle dog'], ['Dose', '30 mg/kg'], ['Summary', 'Not given']])
    expect(await page.getByText('QTc +25 ms at 30 mg/kg; <5 ms at 10 mg/kg & below.').count()).toBe(1)
    const citations = page.getByTestId('record-citations')
    expect(await citations.getByRole('link', { name: 'Dog telemetry, day 3' }).getAttribute('href')).toBe(`${base()}/no-such-page`)
    expect(await citations.getByRole('link', { name: 'QT liability of kinase inhibitors' }).getAttribute('href')).toBe('https://doi.org/10.1000/qt.2020.7')
    expect(await citations.innerText()).toContain('Notebook entry, from the notebook')
    const latest = page.getByTestId('record-version').first()
    expect(await latest.getByTestId('version-changes').innerText()).toMatch(/^Species: dog\s*→\s*became\s*beagle dog$/)
    // The scientist may confirm or retract a finding: the two transitions offered, nothing else.
    const decide = page.getByRole('group', { name: 'Decide: QTc rose at the top dose' })
    expect(await decide.getByRole('button').allInnerTexts()).toEqual(['Confirm', 'Retract'])
    await check(page, 'record-content', decide.getByRole('button', { name: 'Confirm' }))
    await decide.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByTestId('record-version').count()).toBe(3)
    expect(await page.getByTestId('record-version').first().getByTestId('version-changes').innerText()).toMatch(/^Status: Draft\s*→\s*became\s*Confirmed$/)
    expect(await decide.getByRole('button').allInnerTexts()).toEqual(['Retract'])

    // A record field is a link to the record it names.
    const approval = await applyRecordChange(lead, { kind: 'create', programId: tenant.program.id, recordType: 'progress.approvals', title: 'Sign-off on the tox report', fields: { target_record_id: milestone.recordId } })
    await page.goto(`${base()}/p/${SLUG}/records/${approval.recordId}`)
    await page.getByTestId('record-fields').getByRole('link', { name: 'GLP tox report signed' }).click()
    await page.getByRole('heading', { level: 1, name: 'GLP tox report signed' }).waitFor()
  }, 240_000)
})

describe("the rail's areas list a program's records", () => {
  it('opens Evidence from the rail: the kinds of record, a status filter, search and pages', async () => {
    const lead = await asLead()
    const ids: string[] = []
    for (let i = 1; i <= 23; i++) {
      const r = await applyRecordChange(lead, { kind: 'create', programId: tenant.program.id, recordType: 'evidence.gaps', title: `Gap ${String(i).padStart(2, '0')} in the safety package`, body: i === 7 ? 'No hepatocyte data across species.' : '', fields: { severity: 'medium' } })
      ids.push(r.recordId)
    }
    await applyRecordChange(lead, { kind: 'decide', recordId: ids[4], outcome: Object.keys((await import('../../domain/records')).RECORD_TYPES['evidence.gaps'].machine.transitions)[0] })
    const page = await signedIn('Liam Lead')
    await page.getByRole('link', { name: ILLUSTRATIVE.program.name }).click()
    const rail = page.getByRole('navigation', { name: 'Program areas' })
    await rail.getByRole('link', { name: 'Evidence' }).click()
    await page.getByRole('heading', { level: 1, name: 'Evidence' }).waitFor()
    const kinds = page.getByRole('navigation', { name: 'Evidence: kinds of record' })
    expect(await kinds.getByRole('link').allInnerTexts()).toEqual(['Hypotheses', 'Findings', 'Questions', 'Gaps', 'Sources'])
    await kinds.getByRole('link', { name: 'Gaps' }).click()
    await page.getByRole('heading', { level: 2, name: 'Gaps' }).waitFor()
    const rows = page.getByTestId('record-rows').getByRole('link')
    await expect.poll(() => rows.count()).toBe(20)
    expect(await rows.first().innerText()).toBe('Gap 23 in the safety package')
    await check(page, 'record-list', page.getByRole('button', { name: 'Show' }))
    await page.getByRole('link', { name: 'Next page' }).click()
    // The illustrative seed's own gap, older than these, ends the list.
    await expect.poll(async () => (await rows.allInnerTexts()).slice(0, 3)).toEqual(['Gap 03 in the safety package', 'Gap 02 in the safety package', 'Gap 01 in the safety package'])
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0)
    await page.getByRole('link', { name: 'First page' }).click()
    await expect.poll(() => rows.count()).toBe(20)

    await page.getByLabel('Words in the title or the text').fill('hepatocyte')
    await page.getByRole('button', { name: 'Show' }).click()
    await expect.poll(() => rows.allInnerTexts()).toEqual(['Gap 07 in the safety package'])
    expect(new URL(page.url()).searchParams.get('q')).toBe('hepatocyte')
    await page.getByLabel('Words in the title or the text').fill('')
    const decided = (await page.getByLabel('Status').locator('option').allInnerTexts())[2]
    await page.getByLabel('Status').selectOption({ label: decided })
    await page.getByRole('button', { name: 'Show' }).click()
    await expect.poll(() => rows.allInnerTexts()).toEqual(['Gap 05 in the safety package'])
    await check(page, 'record-list-filtered', page.getByRole('button', { name: 'Show' }))
    await page.getByLabel('Words in the title or the text').fill('nothing like this')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.getByTestId('records-empty').waitFor()
    expect(await page.getByTestId('records-empty').innerText()).toBe('No record matches.')

    // Setup, under 'More' for the lead, opens its screen.
    await page.goto(`${base()}/p/${SLUG}/home`)
    await page.getByRole('navigation', { name: 'Program areas' }).getByRole('link', { name: 'Setup' }).click()
    await page.getByRole('heading', { level: 1, name: 'Setup' }).waitFor()
    await check(page, 'program-setup', page.getByRole('link', { name: 'Stage gates' }))
  }, 300_000)

  it("links each 'Based on' line of a proposal to the record it names", async () => {
    const run = await runningRun(db(), tenant, 'scientist')
    const basis = await writeRecord(db(), tenant, 'scientist', { recordType: 'evidence.findings', title: 'Basis: hERG IC50 12 µM', fields: { kind: 'observation' } })
    const client = await connect(stack.current.toolsUrl, run)
    try {
      const res = await client.call('evidence.propose_finding', { change: { kind: 'create', title: 'The hERG margin is thin', fields: { kind: 'interpretation' } }, basisRecordIds: [basis.id], draft: 'The margin is under 30-fold.' }, { duty: 'blocker_scan' })
      expect(res.ok).toBe(true)
    } finally { await client.close() }
    const page = await signedIn('Sofia Scientist')
    await page.goto(`${base()}/p/${SLUG}/home`)
    const card = page.getByTestId('proposal-card').filter({ hasText: 'The hERG margin is thin' })
    await card.waitFor({ timeout: 15_000 })
    await card.getByTestId('basis-line').getByRole('link', { name: 'Basis: hERG IC50 12 µM' }).click()
    await page.getByRole('heading', { level: 1, name: 'Basis: hERG IC50 12 µM' }).waitFor()
    expect(page.url()).toBe(`${base()}/p/${SLUG}/records/${basis.id}`)
  }, 180_000)
})

describe('actions shown per persona', () => {
  const PEOPLE = [
    { name: 'Vera Viewer', slug: 'viewer', markReady: false, memory: false, decides: false },
    { name: 'Sofia Scientist', slug: 'scientist', markReady: false, memory: true, decides: true },
    { name: 'Liam Lead', slug: 'lead', markReady: true, memory: true, decides: true },
    { name: 'Olivia Owner', slug: 'owner', markReady: true, memory: true, decides: true },
  ] as const

  it('offers mark ready, the memory button and the transitions of a finding only to whoever may use them, and says why to the others', async () => {
    const lead = await asLead()
    const finding = await applyRecordChange(lead, { kind: 'create', programId: tenant.program.id, recordType: 'evidence.findings', title: 'Body weight fell 8% in females', fields: { kind: 'observation' } })
    for (const person of PEOPLE) {
      const page = await signedIn(person.name)
      await page.goto(`${base()}/p/${SLUG}/home`)
      await page.getByRole('heading', { name: 'My program in this role\'s terms' }).waitFor().catch(() => page.getByRole('heading', { level: 1, name: ILLUSTRATIVE.program.name }).waitFor())
      await page.getByRole('link', { name: 'Stage gates' }).first().waitFor()
      expect({ who: person.slug, memory: await page.getByRole('button', { name: 'What your twin remembers' }).count() }).toEqual({ who: person.slug, memory: person.memory ? 1 : 0 })

      await page.goto(`${base()}/p/${SLUG}/stage-gates`)
      const gate = page.getByTestId('gate-card').first()
      await gate.waitFor()
      expect({ who: person.slug, markReady: await gate.getByRole('button', { name: 'Mark ready for review' }).count() }).toEqual({ who: person.slug, markReady: person.markReady ? 1 : 0 })
      if (!person.markReady) {
        expect(await gate.getByTestId('gate-not-yours').innerText()).toBe('Marking a gate ready for review is for the program lead, the owner or the manufacturing specialist.')
        await check(page, `stage-gates-${person.slug}`, gate.getByTestId('gate-not-yours'))
      } else {
        await check(page, `stage-gates-${person.slug}`, gate.getByRole('button', { name: 'Mark ready for review' }))
      }

      await page.goto(`${base()}/p/${SLUG}/records/${finding.recordId}`)
      await page.getByRole('heading', { level: 1, name: 'Body weight fell 8% in females' }).waitFor()
      await page.getByTestId('record-actions').waitFor()
      const buttons = page.getByRole('group', { name: 'Decide: Body weight fell 8% in females' }).getByRole('button')
      if (person.decides) {
        expect(await buttons.allInnerTexts()).toEqual(['Confirm', 'Retract'])
        await check(page, `record-actions-${person.slug}`, buttons.first())
      } else {
        expect(await buttons.count()).toBe(0)
        expect(await page.getByTestId('record-read-only').innerText()).toBe('You may read this record. Changing or deciding it is for other members of this program.')
        await check(page, `record-actions-${person.slug}`, page.getByTestId('record-read-only'))
      }
    }
  }, 480_000)

  it("shows the scientist their twin's hypothesis proposal without decide buttons, saying why", async () => {
    const { fileProposal } = await import('../../domain/proposals')
    const lead = await asLead()
    const hypothesis = await applyRecordChange(lead, { kind: 'create', programId: tenant.program.id, recordType: 'evidence.hypotheses', title: 'Target W drives the effect', fields: { confidence: 'low' } })
    const run = await runningRun(db(), tenant, 'scientist')
    const twin = await contextForUser(db(), tenant.users.scientist.id, tenant.organization.id, { twinId: run.twin.id })
    await fileProposal(twin, { runId: run.run.id, change: { kind: 'update', recordId: hypothesis.recordId, fields: { confidence: 'high' } }, basisRecordIds: [hypothesis.recordId], draft: 'The assay supports it.', tool: 'evidence.propose_hypothesis_change' })
    const page = await signedIn('Sofia Scientist')
    await page.goto(`${base()}/p/${SLUG}/home`)
    const card = page.getByTestId('proposal-card').filter({ has: page.getByRole('heading', { name: 'Target W drives the effect' }) })
    await card.waitFor({ timeout: 15_000 })
    await card.getByTestId('not-yours-to-decide').waitFor()
    expect(await card.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0)
    expect(await card.getByRole('button', { name: 'Decline' }).count()).toBe(0)
    await check(page, 'proposal-not-yours-scientist', card.getByTestId('not-yours-to-decide'))
  }, 180_000)
})
