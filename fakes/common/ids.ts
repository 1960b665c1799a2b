// Vendor-looking random identifiers and the "illustrative" label every fake applies to its content.
import { randomBytes } from 'node:crypto'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** `prefix_` followed by `length` random lower-case alphanumerics, e.g. `etr_k3j9x0qa`. */
export function randomId(prefix: string, length = 8): string {
  const bytes = randomBytes(length)
  let out = ''
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length]
  return `${prefix}_${out}`
}

export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url')
}

export const ILLUSTRATIVE_PREFIX = 'Illustrative'

/** Prefixes a display name so that nobody mistakes fake content for real records. */
export function illustrative(name: string): string {
  return name.startsWith(ILLUSTRATIVE_PREFIX) ? name : `${ILLUSTRATIVE_PREFIX} ${name}`
}
