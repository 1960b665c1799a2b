// Owns outbound connections to addresses users configure (a connection's baseUrl): which hosts and addresses they may
// reach, checked on the address each socket actually connects to.
//
// - Refused unless allow-listed: loopback, private (RFC 1918), CGNAT (100.64/10, Alibaba's metadata address), link-local
//   (169.254/16: the cloud metadata services 169.254.169.254 and 169.254.170.2), unique-local IPv6 (fc00::/7: AWS's
//   fd00:ec2::254), IPv4-mapped and other IPv6 forms that embed an IPv4 address, multicast, documentation and reserved
//   ranges.
// - The check runs inside the socket's own DNS lookup (agents below), so a name that resolves to a public address when a
//   connection is saved and to 127.0.0.1 when it is used (DNS rebinding) is still refused; literal addresses, which Node
//   connects to without a lookup, are checked before the socket is created. Redirects reconnect through the same agents.
// - EGRESS_ALLOW (comma-separated CIDRs, addresses and host names) lets operators reach on-premises vendors. Outside
//   production it defaults to loopback, where the fake vendors listen; in production it defaults to nothing.
// - A refusal happens before any packet is sent and reads the same for every port, so the health check cannot be used
//   to tell open ports from closed ones on refused addresses.
import dns, { type LookupAddress } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import type { Duplex } from 'node:stream'
// EGRESS_ALLOW's parser lives with the address ranges: core/env validates the setting with it, and egress reads env.
import { parseAllowList, type AllowList } from '../config'
export { parseAllowList, type AllowList }
import { DomainError } from '../errors'
import { env } from '../config'

/** Where EGRESS_ALLOW is unset: loopback outside production (the fakes), nothing in production. */
export const DEFAULT_DEVELOPMENT_ALLOW = '127.0.0.0/8,::1/128,localhost'

const REFUSED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
]
const REFUSED_V6: [string, number][] = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ['64:ff9b::', 96], ['64:ff9b:1::', 48], // NAT64: reaches any IPv4 address through a translator
  ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16], // discard, IETF (Teredo), documentation, 6to4
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
]

const refused = new net.BlockList()
for (const [a, p] of REFUSED_V4) refused.addSubnet(a, p, 'ipv4')
for (const [a, p] of REFUSED_V6) refused.addSubnet(a, p, 'ipv6')


const stripBrackets = (host: string) => host.replace(/^\[(.*)\]$/, '$1').toLowerCase()

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d, in any spelling) stands for, else the address. */
function unmapped(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  if (net.isIPv4(address)) return { address, type: 'ipv4' }
  if (!net.isIPv6(address)) return { address, type: 'ipv6' }
  // The URL parser writes every IPv6 address in one canonical form: ::ffff:7f00:1 for all spellings of ::ffff:127.0.0.1.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical)
  if (!hex) return { address: canonical, type: 'ipv6' }
  const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)]
  return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, type: 'ipv4' }
}

let cached: { source: string; allow: AllowList } | undefined
/** The allow-list in force (EGRESS_ALLOW, or the mode's default). */
export function allowList(): AllowList {
  const e = env()
  const source = e.EGRESS_ALLOW ?? (e.NODE_ENV === 'production' ? '' : DEFAULT_DEVELOPMENT_ALLOW)
  if (cached?.source !== source) cached = { source, allow: parseAllowList(source).allow }
  return cached.allow
}

/** True when an outbound connection may reach `address` (after the host-name allow-list was consulted). */
export function addressAllowed(address: string, allow = allowList()): boolean {
  const a = unmapped(stripBrackets(address))
  if (allow.ranges.check(a.address, a.type)) return true
  if (a.type === 'ipv6' && a.address.startsWith('::ffff:')) return false // a mapped form unmapped() could not read
  return !refused.check(a.address, a.type)
}

const hostAllowed = (host: string, allow = allowList()) => allow.hosts.has(stripBrackets(host).replace(/\.$/, ''))

/** An outbound connection refused by the egress policy. The message is the same whatever the port or its state. */
export class EgressRefused extends DomainError {
  static readonly code = 'egress_refused' as const
  constructor(readonly host: string) {
    super('egress_refused', `${host} is a private or reserved network address, which connections may not reach; an operator can allow it with EGRESS_ALLOW.`, { status: 422 })
    this.name = 'EgressRefused'
  }
}

/** The EgressRefused behind an error thrown by an HTTP client (got wraps it as `cause`), or null. */
export function egressRefusal(err: unknown): EgressRefused | null {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof EgressRefused) return e
  }
  return null
}

/**
 * Early refusal when a connection is saved: a URL whose host is a literal refused address (or a `localhost` name)
 * answers invalid_input on `field`. Names are resolved only when used (the agents), where rebinding cannot help.
 */
export function assertEgressUrl(url: string | null | undefined, field: string): void {
  if (!url) return
  let host: string
  try { host = stripBrackets(new URL(url).hostname) } catch { return } // the input schema reports malformed URLs
  const allow = allowList()
  if (hostAllowed(host, allow)) return
  const literal = net.isIP(host) !== 0
  const localName = host === 'localhost' || host.endsWith('.localhost')
  if ((literal && !addressAllowed(host, allow)) || (localName && !addressAllowed('127.0.0.1', allow))) {
    throw new DomainError('invalid_input', `${field}: ${host} is a private or reserved network address, which connections may not reach; an operator can allow it with EGRESS_ALLOW.`, { field, status: 422 })
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** dns.lookup that fails with EgressRefused when any address of a name that is not allow-listed is refused. */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, [])
    const allow = allowList()
    if (!hostAllowed(hostname, allow) && (!addresses.length || addresses.some((a) => !addressAllowed(a.address, allow)))) {
      return callback(new EgressRefused(hostname) as unknown as NodeJS.ErrnoException, [])
    }
    if (options.all) return callback(null, addresses)
    callback(null, addresses[0].address, addresses[0].family)
  })
}

/** Checks a literal address (Node skips the lookup for those) and hands every other host to guardedLookup. */
function guardedConnect<O extends { host?: string | null; hostname?: string | null }>(
  options: O, callback: (err: Error | null, socket?: Duplex) => void, connect: (o: O) => Duplex | null | undefined,
): Duplex | null | undefined {
  const host = stripBrackets(options.host ?? options.hostname ?? 'localhost')
  if (net.isIP(host) && !hostAllowed(host) && !addressAllowed(host)) {
    process.nextTick(() => callback(new EgressRefused(host)))
    return undefined
  }
  return connect({ ...options, lookup: guardedLookup })
}

class GuardedHttpAgent extends http.Agent {
  override createConnection(options: net.NetConnectOpts, callback: (err: Error | null, socket?: Duplex) => void) {
    return guardedConnect(options as net.TcpNetConnectOpts, callback, (o) => super.createConnection(o, callback as never))
  }
}

class GuardedHttpsAgent extends https.Agent {
  override createConnection(options: net.NetConnectOpts, callback: (err: Error | null, socket?: Duplex) => void) {
    return guardedConnect(options as net.TcpNetConnectOpts, callback, (o) => super.createConnection(o, callback as never))
  }
}

let agents: { http: http.Agent; https: https.Agent } | undefined
/** got's `agent` option for calls to user-configured addresses: every socket goes through the egress policy. */
export function egressAgents() {
  return (agents ??= { http: new GuardedHttpAgent(), https: new GuardedHttpsAgent() })
}
