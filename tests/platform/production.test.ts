// Production refuses development material: no start without an identity provider, and no token printed.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { freePort } from '../../core/database'
import { useTestDatabase } from '../helpers/db'

const t = useTestDatabase()

/** Runs `file` as its own Node process; resolves with its exit code and output (after `until` appears, sends SIGTERM). */
function run(file: string, env: Record<string, string | undefined>, until?: string, args: string[] = []) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(AUTH_|CONNECTION_SECRET_KEY|NODE_ENV$|VITEST)/.test(k)))
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { env: { ...clean, ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${file} did not finish:\n${output}`)) }, 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (until && output.includes(until)) child.kill('SIGTERM')
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => { clearTimeout(timer); resolve({ code, output }) })
  })
}

const ports = async () => Object.fromEntries(await Promise.all(['GATEWAY_PORT', 'CONNECTORS_PORT', 'WORKBENCH_PORT', 'TWINS_PORT', 'TOOLS_PORT'].map(async (k) => [k, String(await freePort())])))

describe('production settings', () => {
  it('npm start in production without an identity provider stops with one sentence per missing setting and exit code 1', async () => {
    const r = await run('main.ts', { NODE_ENV: 'production', DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir })
    expect(r.code).toBe(1)
    expect(r.output).toContain('Invalid environment:')
    expect(r.output).toContain("AUTH_JWKS_URL: required in production: set it to your identity provider's JWKS URL (the development key pair is never trusted in production).")
    expect(r.output).toContain('AUTH_ISSUER: required in production')
    expect(r.output).toContain('CONNECTION_SECRET_KEY: required in production')
    expect(r.output).not.toMatch(/\n\s+at /) // no stack
  }, 60_000)

  it('npm start in production with an identity provider runs and prints no token', async () => {
    const r = await run('main.ts', {
      NODE_ENV: 'production', DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir, ...(await ports()),
      AUTH_JWKS_URL: 'https://idp.example/.well-known/jwks.json', AUTH_ISSUER: 'https://idp.example/', CONNECTION_SECRET_KEY: randomBytes(32).toString('hex'),
    }, 'Evidence workspace is running')
    expect(r.output).toContain('Evidence workspace is running')
    expect(r.output).toContain('Tokens come from your identity provider (AUTH_JWKS_URL).')
    expect(r.output).not.toContain('Development token')
    expect(r.output).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/) // no JWT anywhere
    expect(r.code).toBe(0)
  }, 90_000)

  it('npm run token refuses in production instead of minting a token', async () => {
    const r = await run('scripts/token.ts', {
      NODE_ENV: 'production', DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir,
      AUTH_JWKS_URL: 'https://idp.example/.well-known/jwks.json', AUTH_ISSUER: 'https://idp.example/', CONNECTION_SECRET_KEY: randomBytes(32).toString('hex'),
    }, undefined, ['--user', 'owner@illustrative.example'])
    expect(r.code).toBe(1)
    expect(r.output).toContain('No development tokens here')
    expect(r.output).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/)
  }, 60_000)
})
