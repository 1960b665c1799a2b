#!/usr/bin/env node
// Verifies an exported audit chain offline: node scripts/audit-verify-offline.mjs <export.json> [--head <seq>:<hash>]
// Needs Node 18+ and nothing else: no project code, no package, no database. Recomputes every entry's hash from the
// exported rows (the canonical form in docs/integrators.md, "The audit chain"), checks each link and sequence number,
// the head, and each daily head; with --head, checks that a head hash you kept earlier is still in the chain.
// Prints "verified ..." and exits 0, or names the first entry that does not verify and exits 1.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

/** RFC 8785 (JSON Canonicalization Scheme) for values JSON.parse produced: sorted keys, ECMAScript number form. */
function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`
}

/** sha256 hex of the canonical { v: 1, seq, prev_hash, entry (without any chain columns), subjects }. */
function entryHash(e) {
  const { chain_seq, prev_hash, entry_hash, ...entry } = e.entry
  const doc = { v: 1, seq: e.seq, prev_hash: e.prev_hash, entry, subjects: e.subjects }
  return createHash('sha256').update(canonical(doc), 'utf8').digest('hex')
}

const [file, ...rest] = process.argv.slice(2)
if (!file) { console.error('Usage: node scripts/audit-verify-offline.mjs <export.json> [--head <seq>:<hash>]'); process.exit(2) }
const kept = rest[0] === '--head' && rest[1] ? rest[1].split(':') : null
const x = JSON.parse(readFileSync(file, 'utf8'))
if (x.format !== 'audit-chain/1') { console.error(`${file}: not an audit chain export (format ${x.format})`); process.exit(2) }

function fail(e, why) {
  console.log(`does not verify at entry #${e.seq} ${e.entry?.id ?? ''}: ${why}`)
  process.exit(1)
}
let prev = ''
const bySeq = new Map()
for (const [i, e] of x.entries.entries()) {
  if (e.seq !== i + 1) fail(e, `entries_missing (expected #${i + 1})`)
  if (e.prev_hash !== prev) fail(e, 'link_broken')
  // Exports made while the audit row carried its own chain columns hold them in `entry`; they must agree with the entry.
  if ('chain_seq' in e.entry && (e.entry.chain_seq !== e.seq || e.entry.prev_hash !== e.prev_hash || e.entry.entry_hash !== e.entry_hash)) fail(e, 'content_changed (chain columns)')
  if (entryHash(e) !== e.entry_hash) fail(e, 'content_changed')
  prev = e.entry_hash
  bySeq.set(e.seq, e.entry_hash)
}
const last = x.entries.length
if (x.head.seq !== last || x.head.hash !== prev) fail({ seq: x.head.seq }, 'head_mismatch (entries were removed at the end, or added after the head)')
for (const d of x.daily_heads) if (bySeq.get(d.seq) !== d.hash) fail({ seq: d.seq }, `daily head of ${d.date} differs`)
if (kept && bySeq.get(Number(kept[0])) !== kept[1]) fail({ seq: Number(kept[0]) }, 'the head you kept is not in this chain')
console.log(`verified: ${last} entries of organisation ${x.organization_id}, head #${x.head.seq} ${x.head.hash || '(empty)'}`)
