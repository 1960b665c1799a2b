// Owns address ranges (comma-separated addresses and CIDR ranges, IPv4 and IPv6) and the client address behind
// trusted proxies. No imports from the rest of core: core/env validates its settings with it.
import { BlockList, isIP } from 'node:net'

/** `::ffff:10.0.0.1` and `10.0.0.1` are the same sender. */
export function normalizeAddress(address: string | undefined | null): string {
  return String(address ?? '').trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')
}

export interface AddressRanges {
  readonly empty: boolean
  has(address: string): boolean
}

/** Parses a comma- or space-separated list of addresses and CIDR ranges (IPv4 and IPv6); throws on a bad entry. */
export function parseAddressRanges(spec: string | undefined | null): AddressRanges {
  const list = new BlockList()
  const entries = String(spec ?? '').split(/[\s,]+/).filter(Boolean)
  for (const entry of entries) {
    const [addr, bits, extra] = entry.split('/')
    const family = isIP(addr)
    if (!family || extra !== undefined) throw new Error(`"${entry}" is not an address or CIDR range`)
    const type = family === 6 ? 'ipv6' : 'ipv4'
    if (bits === undefined) {
      list.addAddress(addr, type)
      continue
    }
    const prefix = Number(bits)
    if (!/^\d{1,3}$/.test(bits) || prefix > (family === 6 ? 128 : 32)) throw new Error(`"${entry}" has a bad prefix length`)
    list.addSubnet(addr, prefix, type)
  }
  return {
    empty: entries.length === 0,
    has(address: string) {
      const a = normalizeAddress(address)
      const family = isIP(a)
      if (!family) return false
      return list.check(a, family === 6 ? 'ipv6' : 'ipv4')
    },
  }
}

/** A check for env validation: the message names the bad entry. */
export function addressRangesProblem(spec: string | undefined): string | null {
  try {
    parseAddressRanges(spec)
    return null
  } catch (e) {
    return (e as Error).message
  }
}

/**
 * The client's address: the immediate peer, unless it is a trusted proxy, in which case the x-forwarded-for entries are
 * walked from the right and the first address that is not a trusted proxy is the client. Entries a client wrote itself
 * (left of the first untrusted hop) are never believed.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: AddressRanges): string {
  let current = normalizeAddress(peer)
  if (trusted.empty || !trusted.has(current)) return current || 'unknown'
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : String(forwardedFor ?? '')).split(',').map(normalizeAddress).filter(Boolean)
  while (hops.length && trusted.has(current)) {
    const next = hops.pop()!
    if (!isIP(next)) break // garbage in the chain: stop at the last trusted hop
    current = next
  }
  return current || 'unknown'
}
