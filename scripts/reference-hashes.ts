// npm run references:hash -- [--record] <file-or-folder>...
// Hashes the guidance documents an operator holds and compares each with the hash recorded for its reference
// (domain/skills/reference-hashes.json); with --record, records the hashes of documents that have
// none yet. A file belongs to the reference whose key is its name without the extension (fda_2005_mrsd.pdf), or
// is named explicitly as key=path. A recorded hash is never overwritten: a document that differs from the one
// recorded fails the command, because a changed guidance needs a person to re-verify the reference.
import { createHash } from 'node:crypto'
import { createReadStream, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, extname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { REFERENCES } from '../domain/skills'

// REFERENCE_HASHES_FILE points the command at a copy (the tests use one); the service reads only the committed file.
const HASHES_FILE =
  process.env.REFERENCE_HASHES_FILE ?? fileURLToPath(new URL('../domain/skills/reference-hashes.json', import.meta.url))
const USAGE = `Usage: npm run references:hash -- [--record] <file-or-folder>... | key=<file>...
Hashes the guidance documents you hold (a file named <reference key>.<ext>, e.g. fda_2005_mrsd.pdf) and compares each
with the recorded hash; --record records the hashes of references that have none yet. Exit code 1 when a document
differs from its recorded hash or a file matches no reference.`

function fail(sentence: string): never {
  process.stderr.write(`${sentence}\n`)
  process.exit(2)
}

function sha256File(path: string): Promise<string> {
  return new Promise((ok, ko) => {
    const h = createHash('sha256')
    createReadStream(path).on('data', (c) => h.update(c)).on('error', ko).on('end', () => ok(h.digest('hex')))
  })
}

function documentsIn(arg: string): Array<{ key: string; path: string }> {
  const eq = arg.indexOf('=')
  if (eq > 0 && !arg.startsWith('/') && !arg.startsWith('.')) return [{ key: arg.slice(0, eq), path: resolve(arg.slice(eq + 1)) }]
  const path = resolve(arg)
  let st
  try {
    st = statSync(path)
  } catch {
    fail(`No such file or folder: ${arg}`)
  }
  if (st.isDirectory()) {
    return readdirSync(path)
      .filter((f) => statSync(join(path, f)).isFile())
      .map((f) => ({ key: basename(f, extname(f)), path: join(path, f) }))
  }
  return [{ key: basename(path, extname(path)), path }]
}

async function main() {
  const args = process.argv.slice(2)
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const record = args.includes('--record')
  const unknownFlag = args.find((a) => a.startsWith('-') && a !== '--record')
  if (unknownFlag) fail(`Unknown option ${unknownFlag}. ${USAGE}`)
  const targets = args.filter((a) => !a.startsWith('-'))
  if (targets.length === 0) fail(USAGE)

  const file = JSON.parse(readFileSync(HASHES_FILE, 'utf8')) as { about: string; hashes: Record<string, { sha256: string; file: string; recorded_on: string }> }
  const byKey = new Map(REFERENCES.map((r) => [r.key, r]))
  let problems = 0
  let recorded = 0
  for (const { key, path } of targets.flatMap(documentsIn)) {
    const ref = byKey.get(key)
    const shown = relative(process.cwd(), path) || path
    if (!ref) {
      process.stdout.write(`${shown}: no reference is keyed '${key}' (name the file <key>.<ext> or pass key=<file>)\n`)
      problems++
      continue
    }
    const sha = await sha256File(path)
    const held = file.hashes[key]?.sha256 ?? (ref.sha256 && !file.hashes[key] ? ref.sha256 : null)
    if (held === sha) {
      process.stdout.write(`${key}: matches the recorded hash (${sha})\n`)
    } else if (held) {
      process.stdout.write(`${key}: DIFFERS from the recorded hash: ${shown} is ${sha}, recorded ${held}. Re-verify the reference before changing the record.\n`)
      problems++
    } else if (record) {
      file.hashes[key] = { sha256: sha, file: basename(path), recorded_on: new Date().toISOString().slice(0, 10) }
      process.stdout.write(`${key}: recorded ${sha} (${shown})\n`)
      recorded++
    } else {
      process.stdout.write(`${key}: ${sha} (${shown}); no hash recorded yet: run again with --record to record it\n`)
    }
  }
  if (recorded > 0) {
    const sorted = Object.fromEntries(Object.entries(file.hashes).sort(([a], [b]) => a.localeCompare(b)))
    writeFileSync(HASHES_FILE, `${JSON.stringify({ about: file.about, hashes: sorted }, null, 2)}\n`)
    process.stdout.write(`${recorded} hash(es) written to ${relative(process.cwd(), HASHES_FILE)}; commit it.\n`)
  }
  const missing = REFERENCES.filter((r) => r.status === 'verified' && !r.sha256 && !file.hashes[r.key]).map((r) => r.key)
  if (missing.length > 0) process.stdout.write(`Verified references still without a document hash: ${missing.join(', ')}\n`)
  return problems > 0 ? 1 : 0
}

process.exitCode = await main()
