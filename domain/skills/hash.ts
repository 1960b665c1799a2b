// Canonical JSON (RFC 8785 via `canonicalize`) and sha256 helpers.
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'

export function canonicalJson(value: unknown): string {
  const s = canonicalize(value)
  if (s === undefined) throw new Error('value cannot be canonicalised')
  return s
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalJson(value))
}
