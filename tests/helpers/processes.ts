// Runs one of the project's entries (main.ts, a script, a component's main.ts) as its own Node process, the way npm
// runs it, for tests of what it prints on which stream and how it exits.
import { spawn } from 'node:child_process'
import { track } from './resources'

export interface EntryResult { code: number | null; stdout: string; stderr: string }

/**
 * `env` is laid over this process's environment without the test runner's settings (NODE_ENV=test, VITEST, a
 * DATABASE_URL or DATA_DIR of its own), so the entry behaves as in a shell; pass what it needs. With `until`, the
 * entry is sent SIGTERM once its output contains that text.
 */
export function runEntry(file: string, opts: { args?: string[]; env?: Record<string, string>; until?: string; timeoutMs?: number } = {}): Promise<EntryResult> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NODE_ENV|VITEST.*|DATABASE_URL|DATA_DIR|LOG_LEVEL|AUTH_.*)$/.test(k)))
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...(opts.args ?? [])], { env: { ...clean, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const result: EntryResult = { code: null, stdout: '', stderr: '' }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${file} did not finish:\n${result.stdout}\n${result.stderr}`))
    }, opts.timeoutMs ?? 90_000)
    const seen = () => { if (opts.until && (result.stdout + result.stderr).includes(opts.until)) child.kill('SIGTERM') }
    child.stdout.on('data', (c: Buffer) => { result.stdout += c; seen() })
    child.stderr.on('data', (c: Buffer) => { result.stderr += c; seen() })
    child.once('close', (code) => { clearTimeout(timer); result.code = code; resolve(result) }) // after stdout and stderr are read to the end
  })
}

/**
 * Starts a component's main.ts as its own Node process (`env` laid over this process's environment) and resolves once
 * it logs component.ready; `await using` (or close()) stops it with SIGTERM and waits for it to exit.
 */
export async function startComponentProcess(file: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const stop = async () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); await exited }
  let output = ''
  await new Promise<void>((resolve, reject) => {
    // generous: a loaded 2-core machine takes over 30 s to import a subgraph
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${file} did not start:\n${output}`)) }, 90_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('"component.ready"')) { clearTimeout(timer); resolve() }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${file} exited with ${code}:\n${output}`)) })
  })
  return track(`the ${file} process`, { child, output: () => output }, stop)
}
