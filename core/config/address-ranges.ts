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

/** One address or CIDR range entry, read: the range, or null when the entry is not an address at all. */
export interface RangeEntry { address: string; prefix: number; type: 'ipv4' | 'ipv6' }

/**
 * Reads `a.b.c.d`, `a.b.c.d/n`, `x::y` or `x::y/n` (a bare address is its own /32 or /128). Null when the entry does not
 * start with an address; 'bad_prefix' when it does but its prefix length is missing, too long or followed by more.
 */
export function readRangeEntry(entry: string): RangeEntry | 'bad_prefix' | null {
  const [address, bits, extra] = entry.split('/')
  const family = isIP(address)
  if (!family) return null
  const type = family === 6 ? 'ipv6' : 'ipv4'
  const max = family === 6 ? 128 : 32
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN
  if (extra !== undefined || !(prefix >= 0 && prefix <= max)) return 'bad_prefix'
  return { address, prefix, type }
}

/** Parses a comma- or space-separated list of addresses and CIDR ranges (IPv4 and IPv6); throws on a bad entry. */
export function parseAddressRanges(spec: string | undefined | null): AddressRanges {
  const list = new BlockList()
  const entries = String(spec ?? '').split(/[\s,]+/).filter(Boolean)
  for (const entry of entries) {
    const range = readRangeEntry(entry)
    if (range === null) throw new Error(`"${entry}" is not an address or CIDR range`)
    if (range === 'bad_prefix') throw new Error(`"${entry}" has a bad prefix length`)
    list.addSubnet(range.address, range.prefix, range.type)
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

/** The outbound allow-list (EGRESS_ALLOW, read by core/http/egress.ts): address ranges and host names. */
export interface AllowList { ranges: BlockList; hosts: Set<string> }

/** Parses EGRESS_ALLOW; returns the problems instead of throwing (the environment lists them with the others). */
export function parseAllowList(value: string): { allow: AllowList; problems: string[] } {
  const allow: AllowList = { ranges: new BlockList(), hosts: new Set() }
  const problems: string[] = []
  for (const raw of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const range = readRangeEntry(raw)
    if (range === 'bad_prefix') {
      problems.push(`${raw} is not a valid CIDR`)
    } else if (range) {
      allow.ranges.addSubnet(range.address, range.prefix, range.type)
      // An allowed IPv4 range also allows its IPv4-mapped IPv6 form (sockets may report either).
      if (range.type === 'ipv4') allow.ranges.addSubnet(`::ffff:${range.address}`, 96 + range.prefix, 'ipv6')
    } else if (/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(raw)) {
      allow.hosts.add(raw.toLowerCase().replace(/\.$/, ''))
    } else {
      problems.push(`${raw} is neither a CIDR, an IP address nor a host name`)
    }
  }
  return { allow, problems }
}
