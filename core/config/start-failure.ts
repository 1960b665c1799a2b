// Owns what a start that cannot go on tells the operator: one sentence on stderr saying what is wrong and what to do,
// exit code 1, no stack trace. A failure the operator can act on (a port held by another process, an embedded
// PostgreSQL that cannot run here) is a StartFailure; any other error is one JSON log line (name and message).
import fs from 'node:fs/promises'
import { env } from './env'
import { log } from './log'

/** Start-up cannot go on; the message is one sentence saying what to do. */
export class StartFailure extends Error {
  override readonly name: string = 'StartFailure'
}

/** Prints why start-up stopped: a StartFailure's sentence alone (a bind error becomes one first), else one log line. */
export async function reportStartFailure(event: string, error: unknown, fields: Record<string, unknown> = {}) {
  const failure = error instanceof StartFailure ? error : await listenFailure(error)
  if (failure) console.error(failure.message)
  else log.error(event, { ...fields, error })
}

/**
 * For an entry's catch: a StartFailure (or a listen error, made one) ends the process with its sentence and exit code 1;
 * anything else is rethrown. `portVariable` names the setting for an entry outside core/env (the fakes run alone).
 */
export async function exitOnStartFailure(error: unknown, portVariable?: string): Promise<never> {
  const failure = error instanceof StartFailure ? error : await listenFailure(error, portVariable)
  if (failure) {
    console.error(failure.message)
    process.exit(1)
  }
  throw error
}

interface ListenError { code?: string; port?: number; address?: string; syscall?: string }

/**
 * A server's listen error (EADDRINUSE, EACCES, EADDRNOTAVAIL) as the sentence an operator acts on, naming the variable
 * that moves it; null for any other error. The variable is found by value among the settings (defaults included),
 * so every listener (components, the worker's probes, the fakes) is covered without each naming its own.
 */
export async function listenFailure(error: unknown, variable?: string): Promise<StartFailure | null> {
  const e = error as ListenError | null
  if (!e || typeof e !== 'object' || e.syscall !== 'listen' || typeof e.port !== 'number') return null
  const port = e.port
  variable ??= portVariable(port)
  if (e.code === 'EADDRINUSE') return new StartFailure(await portInUseSentence(port, variable))
  if (e.code === 'EACCES') {
    return new StartFailure(`Cannot listen on port ${port}: this user may not open ports below 1024; set ${variable ?? 'the port'} to 1024 or above.`)
  }
  if (e.code === 'EADDRNOTAVAIL') {
    const host = hostVariables(e.address)
    return new StartFailure(`Cannot listen on ${e.address}:${port}: no network interface of this machine has the address ${e.address}; set ${host.length ? host.join(' or ') : 'the host'} to one of its addresses (127.0.0.1, or 0.0.0.0 for all).`)
  }
  return null
}

/** "Port N is in use by process P (command) …": the sentence for a port this process needed and another holds. */
export async function portInUseSentence(port: number, variable: string | undefined, alternative?: string): Promise<string> {
  const holder = await portHolder(port)
  const by = holder ? `process ${holder.pid} (${holder.command})` : 'another process'
  const moveIt = variable ? `set ${variable} to a free port${alternative ? `, or ${alternative}` : ''}` : 'choose another port'
  return `Cannot listen on port ${port}: it is in use by ${by}; stop that process, or ${moveIt}.`
}

/** The settings whose value is `port` (GATEWAY_PORT, CONNECTORS_PORT …), defaults included; WORKER_METRICS_PORT is read raw. */
function portVariable(port: number): string | undefined {
  const settings: Record<string, unknown> = { ...safeEnv(), WORKER_METRICS_PORT: process.env.WORKER_METRICS_PORT }
  return Object.keys(settings).find((k) => k.endsWith('_PORT') && Number(settings[k]) === port)
}

function hostVariables(address: string | undefined): string[] {
  const settings = safeEnv()
  return (['HOST', 'GATEWAY_HOST'] as const).filter((k) => settings[k] === address)
}

function safeEnv(): Record<string, unknown> {
  try { return env() as unknown as Record<string, unknown> } catch { return {} }
}

/**
 * The process listening on `port` (TCP, IPv4 or IPv6), from Linux's /proc: the socket's inode in /proc/net/tcp*, then
 * the process holding a descriptor on it. Null where /proc is absent or the holder's descriptors are not ours to read
 * (another user's process, unless we are root).
 */
export async function portHolder(port: number): Promise<{ pid: number; command: string } | null> {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await fs.readFile(table, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      // local_address is HEXADDR:HEXPORT; state 0A is LISTEN; the inode is the tenth column
      if (cols.length > 9 && cols[3] === '0A' && parseInt(cols[1].split(':')[1], 16) === port && cols[9] !== '0') inodes.add(cols[9])
    }
  }
  if (!inodes.size) return null
  const pids = (await fs.readdir('/proc').catch(() => [] as string[])).filter((d) => /^\d+$/.test(d))
  for (const pid of pids) {
    const fds = await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[])
    for (const fd of fds) {
      const target = await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode && inodes.has(inode)) {
        const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
        const command = cmdline.split('\0').filter(Boolean).join(' ').trim() || 'unknown command'
        return { pid: Number(pid), command: command.length > 120 ? `${command.slice(0, 117)}...` : command }
      }
    }
  }
  return null
}
