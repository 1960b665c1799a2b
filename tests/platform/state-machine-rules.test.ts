// The state machines' rules without a database: which states are final (stated here, not derived, so a declaration
// that lets a final state move again fails: issue 41, item 4, 'resume' from 'retired'), the refusal's words, and the
// generated transition tables of docs/contributors.md. Pure: runs in the mutation-testing run (vitest.pure.config.ts).
// Each forbidden (state, transition) pair is refused by the guarded update in tests/platform/state-machines.test.ts.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { defineMachine, invalidTransition, renderMachine, renderStateTables, transitionsOf, STATE_TABLES_END, STATE_TABLES_START } from '../../core/states'
import { MACHINES, twinStatus } from '../../core/states'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** What nothing may leave, machine by machine (the specification's final states, and our design decisions). */
const FINAL_STATES: [string, string[]][] = [
  ['connections.status', ['disconnected']],
  ['inbox_items.status', ['done', 'dismissed', 'expired']],
  ['agent_runs.status', ['succeeded', 'failed', 'cancelled']],
  ['tool_calls.status', ['ok', 'refused', 'failed']],
  ['memory_records.status', ['forgotten']],
  ['twin_definitions.status', ['retired']],
  ['requirement_sets.status', ['superseded']],
  ['stage_gates.status', ['closed']],
  ['handoff_requests.status', ['declined', 'done', 'withdrawn']],
  ['delegations.status', ['expired', 'revoked']],
  ['proposals', ['approved', 'declined', 'expired']],
  ['skill status', ['available']],
  ['sop_versions.lifecycle_state', []],
  ['webhook_deliveries.outcome', ['enqueued', 'ignored', 'rejected']],
  ['launch_ids', ['used', 'expired']],
  ['program_records.status (evidence.hypotheses)', ['withdrawn']],
  ['program_records.status (evidence.findings)', ['retracted']],
  ['program_records.status (evidence.questions)', []],
  ['program_records.status (evidence.gaps)', []],
  ['program_records.status (evidence.sources)', []],
  ['program_records.status (plans.experiments)', ['completed', 'cancelled']],
  ['program_records.status (plans.protocols)', ['superseded', 'withdrawn']],
  ['program_records.status (plans.plans)', ['superseded', 'withdrawn']],
  ['program_records.status (plans.reports)', ['superseded', 'withdrawn']],
  ['program_records.status (progress.milestones)', ['done', 'missed', 'cancelled']],
  ['program_records.status (progress.dependencies)', []],
  ['program_records.status (progress.open_items)', []],
  ['program_records.status (progress.approvals)', ['granted', 'declined', 'withdrawn']],
  ['program_records.status (review.findings)', []],
  ['program_records.status (review.deviations)', []],
]

describe('state machine rules', () => {
  it('name the final states of every machine: no transition leaves them', () => {
    expect(MACHINES.map((m) => [m.name, [...m.terminal]])).toEqual(FINAL_STATES)
    for (const [name, finals] of FINAL_STATES) {
      const m = MACHINES.find((x) => x.name === name)!
      for (const [t, spec] of Object.entries(m.transitions)) {
        for (const s of finals) expect(spec.from, `${name}: ${t} leaves the final state ${s}`).not.toContain(s)
      }
    }
  })

  it('let a twin be resumed only from paused, and retired from active or paused', () => {
    expect(twinStatus.transitions.resume).toMatchObject({ from: ['paused'], to: 'active' })
    expect(twinStatus.transitions.pause).toMatchObject({ from: ['active'], to: 'paused' })
    expect(twinStatus.transitions.retire).toMatchObject({ from: ['active', 'paused'], to: 'retired' })
  })

  it('refuse a forbidden transition in words that name where the row is and where the move applies', () => {
    const e = invalidTransition(twinStatus, 'resume', 'retired', 'active')
    expect({ code: e.code, status: e.httpStatus, from: e.from, to: e.to, message: e.message }).toEqual({
      code: 'invalid_transition', status: 409, from: 'retired', to: 'active', message: 'This twin is retired; resume applies only when it is paused.',
    })
  })

  it('are what docs/contributors.md shows: its transition tables are generated from them (run npm run states when this fails)', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'contributors.md'), 'utf8')
    const start = doc.indexOf(STATE_TABLES_START)
    const end = doc.indexOf(STATE_TABLES_END)
    expect(start, 'docs/contributors.md has no state-tables section').toBeGreaterThanOrEqual(0)
    expect(doc.slice(start, end + STATE_TABLES_END.length)).toBe(renderStateTables(MACHINES))
  })

  it('refuse, when they load, an unknown initial state, a transition to or from an unknown state, and one with no from-state', () => {
    const machine = (initial: string[], from: string[], to: string) => () => defineMachine({
      name: 'x.status', noun: 'x', states: ['a', 'b'], initial: initial as 'a'[], source: 'test', storage: { model: null, column: 'status', note: 'test' },
      transitions: { go: { from: from as 'a'[], to: to as 'b', by: 'test', basis: 'designed', source: 'test' } },
    })
    expect(machine(['c'], ['a'], 'b')).toThrow('x.status: unknown initial state c')
    expect(machine(['a'], ['c'], 'b')).toThrow('x.status.go: unknown state c')
    expect(machine(['a'], ['a'], 'c')).toThrow('x.status.go: unknown state c')
    expect(machine(['a'], [], 'b')).toThrow('x.status.go: a transition needs at least one from-state')
    const ok = machine(['a'], ['a'], 'b')()
    expect(ok.terminal).toEqual(['b'])
    expect(transitionsOf(ok)).toEqual([['go', { from: ['a'], to: 'b', by: 'test', basis: 'designed', source: 'test' }]])
  })

  it('render a machine as its table: states, where it is created, its final states, each transition with its basis', () => {
    const m = defineMachine({
      name: 'x.status', noun: 'x', states: ['a', 'b'], initial: ['a'], source: 'spec 1', storage: { model: 'connection', column: 'status', dbType: 'enum x' },
      transitions: { go: { from: ['a'], to: 'b', by: 'a | b', basis: 'shown', source: 'spec 2' } },
    })
    expect(renderMachine(m)).toBe([
      '#### x.status', '',
      'Stored as enum x, applied. States: `a`, `b`; created in `a`; final: `b`. Source: spec 1.', '',
      '| transition | from | to | what moves it | basis |', '|---|---|---|---|---|',
      '| `go` | `a` | `b` | a \\| b | shown: spec 2 |', '',
    ].join('\n'))
    const fixed = defineMachine({ name: 'y', noun: 'y', states: ['a'], initial: ['a'], source: 's', storage: { model: null, column: 'c', note: 'later' }, transitions: {} })
    expect(renderMachine(fixed)).toBe('#### y\n\nDeclared only: later. States: `a`; created in `a`; final: `a`. Source: s.\n\nNo transitions: the value is fixed when the row is written.\n')
  })
})
