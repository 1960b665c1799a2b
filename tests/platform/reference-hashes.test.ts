// The operator's command for guidance-document hashes (npm run references:hash), run as an operator runs it.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '..', '..')

async function hashCommand(args: string[], hashesFile: string) {
  try {
    const r = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/reference-hashes.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, REFERENCE_HASHES_FILE: hashesFile },
    })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (e: any) {
    return { code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }
  }
}

describe('npm run references:hash', () => {
  it('records the hash of a held guidance, then reports a match, and fails on a document that differs without overwriting the record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guidance-'))
    const hashes = join(mkdtempSync(join(tmpdir(), 'hashes-')), 'hashes.json')
    writeFileSync(hashes, JSON.stringify({ about: 'test copy', hashes: {} }))
    const pdf = join(dir, 'fda_2005_mrsd.pdf')
    writeFileSync(pdf, 'the July 2005 guidance')

    const dry = await hashCommand([pdf], hashes)
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain('no hash recorded yet: run again with --record to record it')
    expect(JSON.parse(readFileSync(hashes, 'utf8')).hashes).toEqual({})

    const recorded = await hashCommand(['--record', dir], hashes)
    expect(recorded.code).toBe(0)
    const sha = JSON.parse(readFileSync(hashes, 'utf8')).hashes.fda_2005_mrsd.sha256
    expect(sha).toMatch(/^[0-9a-f]{64}$/)
    expect(recorded.stdout).toContain(`fda_2005_mrsd: recorded ${sha}`)
    expect(recorded.stdout).toContain('Verified references still without a document hash: ema_2017_fih, ich_m3r2')

    expect((await hashCommand([pdf], hashes)).stdout).toContain(`fda_2005_mrsd: matches the recorded hash (${sha})`)

    writeFileSync(pdf, 'an edited guidance')
    const changed = await hashCommand(['--record', pdf], hashes)
    expect(changed.code).toBe(1)
    expect(changed.stdout).toContain('fda_2005_mrsd: DIFFERS from the recorded hash')
    expect(JSON.parse(readFileSync(hashes, 'utf8')).hashes.fda_2005_mrsd.sha256).toBe(sha)
  })

  it('fails on a file that names no reference, and on an unknown option with its usage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guidance-'))
    const hashes = join(dir, 'hashes.json')
    writeFileSync(hashes, JSON.stringify({ about: 'test copy', hashes: {} }))
    writeFileSync(join(dir, 'minutes.pdf'), 'not a guidance')
    const unknown = await hashCommand([join(dir, 'minutes.pdf')], hashes)
    expect(unknown.code).toBe(1)
    expect(unknown.stdout).toContain("no reference is keyed 'minutes'")
    const bad = await hashCommand(['--overwrite', dir], hashes)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('Unknown option --overwrite. Usage: npm run references:hash')
  })
})
