// The guard that fails a test file leaving a server, worker or database connection running: a file that forgets a
// server fails (run in its own vitest process), and the registry names what a factory started and nobody closed.
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { listen } from '../../fakes/common/listen'
import { collectLeaks, snapshotHandles, stillOpen, track } from '../helpers/resources'

describe('leak guard', () => {
  it('fails a test file that leaves a server listening, naming the address, although its tests passed', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'tests/setup/fixtures/vitest.config.ts'], {
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (c) => (output += c))
    child.stderr.on('data', (c) => (output += c))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code, output).not.toBe(0)
    expect(output).toMatch(/This test file left running: a server listening on 127\.0\.0\.1:\d+/)
    expect(output).toMatch(/1 passed/)
  })

  it('reports a server started after the snapshot, and nothing once it is closed', async () => {
    const before = snapshotHandles()
    const server = await listen((_req, res) => res.end())
    expect(await collectLeaks(before)).toEqual([`a server listening on 127.0.0.1:${server.port}`])
    expect(server.server.listening).toBe(false) // the guard closed it so the run can go on
    const again = await listen((_req, res) => res.end())
    await again.close()
    expect(await collectLeaks(before)).toEqual([])
  })

  it('names a tracked resource nobody closed, closes it, and forgets one closed with await using', async () => {
    const before = snapshotHandles()
    let closed = 0
    track('worker runner (test)', {}, async () => { closed += 1 })
    {
      await using _scoped = track('stack (test)', {}, async () => { closed += 1 })
      expect(stillOpen()).toEqual(['worker runner (test)', 'stack (test)'])
    }
    expect(stillOpen()).toEqual(['worker runner (test)'])
    expect(await collectLeaks(before)).toEqual(['worker runner (test) (never closed)'])
    expect(closed).toBe(2)
    expect(stillOpen()).toEqual([])
  })
})
