// Console benchmark (issue 27): the bundle's size gzip against its budget; the role home from navigation to its four
// regions rendered (median of 20 loads, in Chromium over the real stack); a decision filed by a twin (the tool call over
// MCP) until its card is on screen (median and p99 of 50, measured from the tool call's answer: the commit precedes it);
// and the console's request count for one role home load. Prints `name value` lines; never asserts timings.
// Alone: `npx tsx bench/console.ts`. Knobs: BENCH_CONSOLE_LOADS (20), BENCH_CONSOLE_DECISIONS (50).
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { provisionBenchDatabase } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { createPrisma, type Db } from '../core/db'
import { parseEnv, setEnv } from '../core/env'
import { mintDevToken, resetAuthKeys } from '../core/auth'
import { startStack } from '../services'
import { ILLUSTRATIVE } from '../core/seed'
import { seedIllustrative } from '../subgraphs/seed'
import { seedIllustrativeTwins } from '../subgraphs/twins/domain/twins'
import { launchChromium } from '../tests/helpers/browser'
import { openConsoleAs } from '../tests/helpers/console'
import { connect, runningRun, writeRecord } from '../tests/twins/tools-helpers'
import { BACKPRESSURE_OPEN_DECISIONS, openDecisionCount } from '../subgraphs/twins/domain/inbox/backpressure'
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

    const arrivals: number[] = []
    // A person's twins stop filing at BACKPRESSURE_OPEN_DECISIONS decisions waiting (the bench leaves each one open):
    // at most as many as fit below it, so a larger knob measures fewer rather than crashing on harness_denied.
    const room = BACKPRESSURE_OPEN_DECISIONS - 1 - await openDecisionCount(db, tenant.users.scientist.id)
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
