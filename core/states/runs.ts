// Owns the state sets of agent runs and tool calls (platform tables; the documents name 'succeeded' and the
// tool_calls row every skill call writes, the rest is the design decisions (docs/contributors.md)).
import { defineMachine } from './state-machine'

export const agentRunStatus = defineMachine({
  name: 'agent_runs.status',
  noun: 'run',
  states: ['queued', 'running', 'interrupted', 'succeeded', 'failed', 'cancelled'],
  initial: ['queued'],
  source: "ours; spec 002 §States and transitions ('the run stays succeeded'), run_interrupts",
  storage: { model: 'agentRun', column: 'status', dbType: 'enum agent_run_status' },
  transitions: {
    start: { from: ['queued'], to: 'running', by: 'the worker picks the run up (started_at set)', basis: 'designed', source: 'the specification shows no transition' },
    interrupt: { from: ['running'], to: 'interrupted', by: 'a run interrupt waits for a person (write_approval, batch_approval, ...)', basis: 'designed', source: 'the specification shows no transition' },
    resume: { from: ['interrupted'], to: 'running', by: 'the interrupt is answered', basis: 'designed', source: 'the specification shows no transition' },
    succeed: {
      from: ['running'], to: 'succeeded', by: 'the run finishes (finished_at set); expiring its inbox items later leaves it succeeded',
      basis: 'shown', source: 'spec 002 §States and transitions (inbox_expire: the run stays succeeded)',
    },
    fail: { from: ['queued', 'running', 'interrupted'], to: 'failed', by: 'an error ends the run (error, finished_at set)', basis: 'designed', source: 'the specification shows no transition' },
    cancel: { from: ['queued', 'running', 'interrupted'], to: 'cancelled', by: 'the person, or a twin pause, stops the run', basis: 'designed', source: 'the specification shows no transition' },
  },
})

/** Class A calls are written finished (ok); class B calls are written running and answered by skill_library_job. */
export const toolCallStatus = defineMachine({
  name: 'tool_calls.status',
  noun: 'tool call',
  states: ['running', 'ok', 'refused', 'failed'],
  initial: ['running', 'ok'],
  source: 'ours; spec 002 §Skills (each call writes a tool_calls row; class B runs as the worker job skill_library_job)',
  storage: { model: 'toolCall', column: 'status', dbType: 'enum tool_call_status' },
  transitions: {
    complete: {
      from: ['running'], to: 'ok', by: 'skill_library_job records the result (result_artifact_id, check_logic_version, inputs_hash)',
      basis: 'designed', source: 'the specification shows no transition',
    },
    refuse: { from: ['running'], to: 'refused', by: 'skill_library_job: the skill refused its inputs (output_violations)', basis: 'designed', source: 'the specification shows no transition' },
    fail: { from: ['running'], to: 'failed', by: 'skill_library_job: the skill failed or timed out', basis: 'designed', source: 'the specification shows no transition' },
  },
})
