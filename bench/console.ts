// Console benchmark (issue 27): the bundle's size gzip against its budget; the role home from navigation to its four
// regions rendered (median of 20 loads, in Chromium over the real stack); a decision filed by a twin (the tool call over
// MCP) until its card is on screen (median and p99 of 50, measured from the tool call's answer: the commit precedes it);
// and the console's request count for one role home load; for the record screens (a record's content, a record list,
// filtered, Setup, the stage gates with the person's actions) the requests of one load and the time to content; the
// oversight screen (as the lead) to all its parts and the NCA result (plot and table) after a pasted table, with their
// request counts. Prints `name value` lines; never asserts timings.
// Alone: `npx tsx bench/console.ts`. Knobs: BENCH_CONSOLE_LOADS (20), BENCH_CONSOLE_DECISIONS (50).
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { provisionBenchDatabase } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { createPrisma, type Db } from '../core/database'
import { parseEnv, setEnv } from '../core/config'
import { mintDevToken, resetAuthKeys } from '../core/identity'
import { startStack } from '../services'
import { ILLUSTRATIVE } from '../core/database'
import { seedIllustrative } from '../subgraphs/seed'
import { seedIllustrativeTwins } from '../domain/twins'
import { launchChromium } from '../tests/helpers/browser'
import { openConsoleAs } from '../tests/helpers/console'
import { connect, runningRun, writeRecord } from '../tests/twins/tools-helpers'
import { BACKPRESSURE_OPEN_DECISIONS, openDecisionCount } from '../domain/inbox'
import type { Tenant } from '../tests/helpers/factories'

/** The bundle budget, gzip (bench/README.md says why). */
export const CONSOLE_BUNDLE_BUDGET_KB = 150

export async function benchConsole(): Promise<void> {
  const k = knobs('BENCH_CONSOLE', { LOADS: 20, DECISIONS: 50 }, { LOADS: 2, DECISIONS: 2 })
  const restoreLogs = quietLogs()
  const database = await provisionBenchDatabase('console')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  resetAuthKeys()
  const db: Db = createPrisma(database.url, 10)
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined
  try {
    // Not production: the development sign-in is how the browser signs in here.
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: false }))
    const seed = await seedIllustrative(db)
    await seedIllustrativeTwins(db, seed)
    const users = Object.fromEntries(Object.entries(seed.users).map(([key, u]) => [key, { ...u }]))
    const tenant = { organization: seed.organization, program: seed.program, users, token: (p: string) => mintDevToken(users[p]) } as unknown as Tenant

    browser = await launchChromium()
    const person = await openConsoleAs(browser, stack.gatewayUrl, ILLUSTRATIVE.users.find((u) => u.persona === 'scientist')!.name)
    const page = person.page

    // The bundle the gateway built for this start.
    // The gateway caches builds under DATA_DIR (or the repository's .data): the newest is this start's.
    const builds = [path.join(database.dataDir, 'console'), path.resolve('.data', 'console')]
      .filter((root) => fs.existsSync(root))
      .flatMap((root) => fs.readdirSync(root).map((d) => path.join(root, d)))
      .filter((d) => fs.existsSync(path.join(d, 'app.js')))
      .sort((a, b) => fs.statSync(path.join(b, 'app.js')).mtimeMs - fs.statSync(path.join(a, 'app.js')).mtimeMs)
    if (builds.length) {
      const gz = (f: string) => (fs.existsSync(f) ? zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length : 0)
      const bytes = gz(path.join(builds[0], 'app.js')) + gz(path.join(builds[0], 'app.css'))
      out('console.bundle.gzip_kb', (bytes / 1024).toFixed(1))
      out('console.bundle.budget_kb', CONSOLE_BUNDLE_BUDGET_KB)
      out('console.bundle.within_budget', bytes / 1024 <= CONSOLE_BUNDLE_BUDGET_KB)
    } else out('console.bundle.gzip_kb', 'not found')

    const home = `${stack.gatewayUrl}/p/${ILLUSTRATIVE.program.slug ?? 'illustrative-program'}/home`
    const regionsRendered = () => page.waitForFunction(() => {
      const d = (globalThis as any).document
      // The role home's four regions by their headings (other headings may join them: a count broke this once).
      const regions = ['region-decisions', 'region-questions', 'region-board', 'region-terms'].every((id) => d.getElementById(id))
      return regions && (d.querySelector('[data-testid="inbox-empty"]') || d.querySelector('[data-testid="proposal-card"]'))
    }, undefined, { timeout: 30_000 })

    // One load's requests (after the bundle is cached, as a returning person's load).
    await page.goto(home)
    await regionsRendered()
    const requests: string[] = []
    const onRequest = (r: { url(): string }) => requests.push(r.url())
    page.on('request', onRequest)
    await page.goto(home)
    await regionsRendered()
    await page.waitForTimeout(500)
    page.off('request', onRequest)
    out('console.home.requests', requests.length)
    out('console.home.graphql_requests', requests.filter((u) => u.includes('/graphql')).length)

    const loads: number[] = []
    for (let i = 0; i < k.LOADS; i++) {
      const t0 = performance.now()
      await page.goto(home)
      await regionsRendered()
      loads.push(performance.now() - t0)
    }
    out('console.home.loads', loads.length)
    out('console.home.median_ms', percentile(loads, 50).toFixed(0))

    // The record screens (issue 34): a record with its content, a list of one record type (plain, and filtered by
    // status and words), Setup and the stage gates with the actions the person may take. Per screen: every request of
    // one load with the bundle cached, and navigation until its content is on screen (median of LOADS).
    const slug = ILLUSTRATIVE.program.slug ?? 'illustrative-program'
    const finding = await writeRecord(db, tenant, 'scientist', { recordType: 'evidence.findings', title: 'Bench finding with content', body: 'QTc +25 ms at 30 mg/kg.', fields: { kind: 'result', species: 'dog', dose_mg_per_kg: 30 } })
    for (let i = 0; i < 45; i++) await writeRecord(db, tenant, 'scientist', { recordType: 'evidence.findings', title: `Bench listed finding ${i}`, fields: { kind: 'observation' } })
    const screens: { name: string; url: string; ready: string }[] = [
      { name: 'record', url: `/p/${slug}/records/${finding.id}`, ready: '[data-testid="record-fields"] dd, [data-testid="record-version"]' },
      { name: 'record_list', url: `/p/${slug}/evidence?type=evidence.findings`, ready: '[data-testid="record-rows"] li' },
      { name: 'record_list_filtered', url: `/p/${slug}/evidence?type=evidence.findings&status=draft&q=listed`, ready: '[data-testid="record-rows"] li' },
      { name: 'setup', url: `/p/${slug}/setup`, ready: '[data-testid="program-setup"]' },
      { name: 'stage_gates', url: `/p/${slug}/stage-gates`, ready: '[data-testid="gate-card"] [data-testid="gate-not-yours"], [data-testid="gate-card"] button' },
    ]
    for (const screen of screens) {
      const url = `${stack.gatewayUrl}${screen.url}`
      const ready = () => page.waitForSelector(screen.ready, { timeout: 30_000 })
      await page.goto(url)
      await ready()
      const seen: string[] = []
      const onScreenRequest = (r: { url(): string }) => seen.push(r.url())
      page.on('request', onScreenRequest)
      await page.goto(url)
      await ready()
      await page.waitForTimeout(500)
      page.off('request', onScreenRequest)
      out(`console.${screen.name}.requests`, seen.length)
      out(`console.${screen.name}.graphql_requests`, seen.filter((u) => u.includes('/graphql')).length)
      const times: number[] = []
      for (let i = 0; i < k.LOADS; i++) {
        const t0 = performance.now()
        await page.goto(url)
        await ready()
        times.push(performance.now() - t0)
      }
      out(`console.${screen.name}.content_median_ms`, percentile(times, 50).toFixed(0))
    }
    // The decisions below arrive on the role home.
    await page.goto(home)
    await regionsRendered()

    // The skills screen: an NCA extraction from a pasted table until its plot and table are on screen.
    const skills = `${stack.gatewayUrl}/p/${ILLUSTRATIVE.program.slug ?? 'illustrative-program'}/skills`
    const pasted = ['Time (h)\tConcentration (mg/L)', '0\t0.74', '0.25\t2.84', '0.57\t6.57', '1.12\t10.5', '2.02\t9.66', '3.82\t8.58', '5.1\t8.36', '7.03\t7.47', '9.05\t6.89', '12.12\t5.94', '24.37\t3.28'].join('\n')
    const ncaTimes: number[] = []
    let ncaRequests = 0
    for (let i = 0; i < Math.max(3, Math.round(k.LOADS / 4)); i++) {
      await page.goto(skills)
      const form = page.getByTestId('nca-form')
      await form.getByLabel(/^Concentrations/).fill(pasted)
      await form.getByLabel('Dose at time zero').fill('320')
      const seen: string[] = []
      const count = (r: { url(): string }) => seen.push(r.url())
      page.on('request', count)
      const t0 = performance.now()
      await form.getByRole('button', { name: 'Extract the parameters' }).click()
      await page.getByTestId('nca-plot-log').waitFor({ timeout: 30_000 })
      await page.getByTestId('nca-parameters').waitFor({ timeout: 30_000 })
      ncaTimes.push(performance.now() - t0)
      page.off('request', count)
      ncaRequests = seen.length
    }
    out('console.skills_nca.runs', ncaTimes.length)
    out('console.skills_nca.median_ms', percentile(ncaTimes, 50).toFixed(0))
    out('console.skills_nca.requests', ncaRequests)

    // The oversight screen, as the program lead: navigation until every part is on screen.
    const lead = await openConsoleAs(browser, stack.gatewayUrl, ILLUSTRATIVE.users.find((u) => u.persona === 'program_lead')!.name)
    try {
      const oversight = `${stack.gatewayUrl}/p/${ILLUSTRATIVE.program.slug ?? 'illustrative-program'}/oversight`
      const allParts = () => lead.page.waitForFunction(() => {
        const d = (globalThis as any).document
        return d.querySelectorAll('main h2').length >= 5 && d.querySelector('[data-testid="oversight-twin"]')
      }, undefined, { timeout: 30_000 })
      await lead.page.goto(oversight)
      await allParts()
      const seen: string[] = []
      const count = (r: { url(): string }) => seen.push(r.url())
      lead.page.on('request', count)
      await lead.page.goto(oversight)
      await allParts()
      await lead.page.waitForTimeout(500)
      lead.page.off('request', count)
      out('console.oversight.requests', seen.length)
      out('console.oversight.graphql_requests', seen.filter((u) => u.includes('/graphql')).length)
      const times: number[] = []
      for (let i = 0; i < k.LOADS; i++) {
        const t0 = performance.now()
        await lead.page.goto(oversight)
        await allParts()
        times.push(performance.now() - t0)
      }
      out('console.oversight.loads', times.length)
      out('console.oversight.median_ms', percentile(times, 50).toFixed(0))
    } finally {
      await lead.close()
    }

    // Back on the role home, where a twin's decision arrives.
    await page.goto(home)
    await regionsRendered()
    const arrivals: number[] = []
    // A person's twins stop filing at BACKPRESSURE_OPEN_DECISIONS decisions waiting (the bench leaves each one open):
    // at most as many as fit below it, so a larger knob measures fewer rather than crashing on harness_denied.
    const room = BACKPRESSURE_OPEN_DECISIONS - 1 - await openDecisionCount(db, tenant.users.scientist.id, tenant.organization.id)
    const decisions = Math.max(1, Math.min(k.DECISIONS, room))
    const run = await runningRun(db, tenant, 'scientist')
    const client = await connect(stack.toolsUrl, run)
    try {
      for (let i = 0; i < decisions; i++) {
        const title = `Bench decision ${i}`
        const basis = await writeRecord(db, tenant, 'scientist', { recordType: 'evidence.findings', title: `Basis ${i}`, fields: { kind: 'observation', species: 'rat' } })
        const res = await client.call('evidence.propose_finding', {
          change: { kind: 'create', title, fields: { kind: 'interpretation' } }, basisRecordIds: [basis.id], draft: `Reading ${i}.`,
        }, { duty: 'blocker_scan' })
        const t0 = performance.now()
        if (!res.ok) throw new Error(`propose_finding refused: ${JSON.stringify(res)}`)
        await page.getByTestId('proposal-card').filter({ hasText: title }).first().waitFor({ timeout: 30_000 })
        arrivals.push(performance.now() - t0)
      }
    } finally {
      await client.close()
    }
    out('console.decision.n', arrivals.length)
    out('console.decision.median_ms', percentile(arrivals, 50).toFixed(0))
    out('console.decision.p99_ms', percentile(arrivals, 99).toFixed(0))
    await person.close()
  } finally {
    await browser?.close()
    await started?.stop()
    await db.$disconnect()
    await database.cleanup()
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchConsole)
