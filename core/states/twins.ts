// Owns the state sets of the persona twins specification (002): twins, inbox items, hand-offs, delegations,
// stage gates, skills and proposals. Only the shown rows are 'shown'; the rest are the design decisions (docs/contributors.md) decisions
// ("Transitions: not shown for any of these state sets beyond the rows above") built from the named operations.
import { defineMachine } from './state-machine'

const SETS = 'spec 002 §States and transitions'
const MOVES = 'spec 002 §States and transitions, moves that are shown'
const OPS = 'spec 002 §States and transitions, operations'
const designed = (op: string) => `the specification shows no transition; operation ${op} (${OPS})`

export const inboxItemStatus = defineMachine({
  name: 'inbox_items.status',
  noun: 'inbox item',
  states: ['open', 'snoozed', 'done', 'dismissed', 'expired'],
  initial: ['open'],
  source: SETS,
  quote: { doc: '002', text: 'inbox_items.status (open, snoozed, done, dismissed, expired)' },
  storage: { model: 'inboxItem', column: 'status', dbType: 'enum inbox_item_status' },
  transitions: {
    snooze: { from: ['open'], to: 'snoozed', by: 'snooze (snoozed_until set)', basis: 'designed', source: designed('snooze') },
    wake: { from: ['snoozed'], to: 'open', by: 'job inbox_expire: the snooze ended', basis: 'shown', source: `${MOVES} (un-snoozes due items)` },
    resolve: { from: ['open', 'snoozed'], to: 'done', by: 'resolve (done_by, done_at set)', basis: 'designed', source: designed('resolve') },
    dismiss: { from: ['open', 'snoozed'], to: 'dismissed', by: 'dismiss', basis: 'designed', source: designed('dismiss') },
    expire: {
      from: ['open', 'snoozed'], to: 'expired', by: "job inbox_expire: past its due time; the run stays succeeded; card reads 'Expired, nothing written'",
      basis: 'shown', source: MOVES,
    },
  },
})

export const twinStatus = defineMachine({
  name: 'twin_definitions.status',
  noun: 'twin',
  states: ['active', 'paused', 'retired'],
  // threads.schedule is migrated into paused twins (paused_reason migrated), so a twin can be created paused.
  initial: ['active', 'paused'],
  source: SETS,
  quote: { doc: '002', text: 'twin_definitions.status (active, paused, retired)' },
  storage: { model: 'twinDefinition', column: 'status', dbType: 'enum twin_status' },
  transitions: {
    pause: {
      from: ['active'], to: 'paused', by: 'pause, or a pause cause (paused_reason: user, manage, budget, high_decline_rate, permission_lost, membership_lost, user_inactive); notification twin_paused',
      basis: 'shown', source: MOVES,
    },
    resume: { from: ['paused'], to: 'active', by: 'resume (paused_reason cleared)', basis: 'designed', source: designed('resume') },
    retire: { from: ['active', 'paused'], to: 'retired', by: 'retire (retired_at set)', basis: 'designed', source: designed('retire') },
  },
})

export const handoffStatus = defineMachine({
  name: 'handoff_requests.status',
  noun: 'hand-off',
  states: ['sent', 'accepted', 'declined', 'done', 'withdrawn'],
  initial: ['sent'],
  source: `${SETS} (created in sent on approval of the sending proposal, audit handoff.send)`,
  quote: { doc: '002', text: 'handoff_requests.status (sent, accepted, declined, done, withdrawn)' },
  storage: { model: 'handoffRequest', column: 'status', dbType: 'enum handoff_status' },
  transitions: {
    accept: {
      from: ['sent'], to: 'accepted', by: "accept, by a recipient only (a holder of to_persona_key in the program, or to_user_id); audit handoff.accept (triggerable); starts a twin_handoff run of the recipient's twin when it has a handoff trigger",
      basis: 'designed', source: designed('accept'),
    },
    decline: {
      from: ['sent'], to: 'declined', by: "decline, by a recipient only, with a reason ('Declining needs a reason; it is stored as evaluation data.'); audit handoff.decline",
      basis: 'shown', source: `${SETS}, Rules (declining needs a reason)`,
    },
    complete: { from: ['accepted'], to: 'done', by: 'complete, by the recipient who accepted; audit handoff.complete', basis: 'designed', source: designed('complete') },
    withdraw: { from: ['sent', 'accepted'], to: 'withdrawn', by: 'withdraw, by the sender only; audit handoff.withdraw', basis: 'designed', source: designed('withdraw') },
  },
})

export const delegationStatus = defineMachine({
  name: 'delegations.status',
  noun: 'delegation',
  states: ['active', 'expired', 'revoked'],
  initial: ['active'],
  source: SETS,
  quote: { doc: '002', text: 'delegations.status (active, expired, revoked)' },
  storage: { model: 'delegation', column: 'status', dbType: 'enum delegation_status' },
  transitions: {
    renew: {
      from: ['active'], to: 'active', by: 'renew: createDelegation again for the same delegate and program starts a new period (starts_at now, ends_at at most 30 days later), renewal_count + 1; audit delegation.renew',
      basis: 'designed', source: designed('renew'),
    },
    expire: { from: ['active'], to: 'expired', by: 'job delegation_expire: ends_at passed (routing already stops at ends_at); audit delegation.expire', basis: 'designed', source: designed('expire') },
    revoke: { from: ['active'], to: 'revoked', by: 'revoke by the delegator (revoked_at set); routing stops at once; audit delegation.revoke', basis: 'designed', source: designed('revoke') },
  },
})

export const stageGateStatus = defineMachine({
  name: 'stage_gates.status',
  noun: 'stage gate',
  states: ['open', 'ready', 'reviewed', 'closed'],
  initial: ['open'],
  source: `${SETS} (R4)`,
  quote: { doc: '002', text: 'stage_gates.status (open, ready, reviewed, closed)' },
  storage: { model: 'stageGate', column: 'status', dbType: 'enum stage_gate_status' },
  transitions: {
    ready: { from: ['open'], to: 'ready', by: 'ready: every required record present, else gate_incomplete naming what is missing (ready_by, ready_at)', basis: 'designed', source: designed('ready') },
    reopen: { from: ['ready', 'reviewed'], to: 'open', by: 'reopen: back to open for more records (the review signature, if any, stays in the audit trail and is cleared from the gate)', basis: 'designed', source: designed('reopen') },
    review: { from: ['ready'], to: 'reviewed', by: 'review under review.stage_reviews.approve, signed with meaning review (review_signature_id)', basis: 'designed', source: designed('review') },
    close: {
      from: ['reviewed'], to: 'closed', by: 'close under progress.stages.approve by someone other than the reviewer, approved and signed with meaning approval; moves programs.current_stage_id to next_stage_id in the same transaction',
      basis: 'designed', source: designed('close'),
    },
    supersede: {
      from: ['open', 'ready', 'reviewed'], to: 'closed', by: 'supersede: a new version (supersedes_id) replaces this one',
      basis: 'designed', source: designed('supersede'),
    },
  },
})

/** A skill's status is computed from the catalogue and the release flags, never stored per row. */
export const skillStatus = defineMachine({
  name: 'skill status',
  noun: 'skill',
  states: ['designed', 'preview', 'available'],
  initial: ['designed'],
  source: SETS,
  quote: { doc: '002', text: 'skill status (designed, with preview and available reserved)' },
  storage: { model: null, column: 'status', note: 'computed from the catalogue and R4_GATE_PASSED' },
  transitions: {
    release: { from: ['designed'], to: 'preview', by: 'R4_GATE_PASSED flipped to true (the flag flip is the release act)', basis: 'shown', source: MOVES },
    make_available: { from: ['preview'], to: 'available', by: 'a later release act', basis: 'designed', source: 'release statuses: designed, then preview, later available' },
  },
})

/**
 * Proposals: a twin's write waiting for a person's decision (a write_approval interrupt). The documents name the
 * outcomes (decided, declined, stale_proposal, interrupts that expire) but no status column: the states are ours.
 */
export const proposalStatus = defineMachine({
  name: 'proposals',
  noun: 'proposal',
  states: ['pending', 'approved', 'declined', 'expired'],
  initial: ['pending'],
  source: 'ours, from spec 002 (decline-rate pause counts decided and declined proposals; stale_proposal) and spec 001 (write_approval answered or expired)',
  storage: { model: null, column: 'answer, answered_at, expires_at', note: 'derived from run_interrupts' },
  transitions: {
    approve: {
      from: ['pending'], to: 'approved', by: "decision by the author; refused with stale_proposal ('Changed since proposed') when basis_hash differs, the proposal staying pending",
      basis: 'shown', source: MOVES,
    },
    decline: { from: ['pending'], to: 'declined', by: 'decision by the author (counts toward the decline-rate pause)', basis: 'designed', source: 'the decline-rate pause' },
    expire: { from: ['pending'], to: 'expired', by: 'the interrupt expires with the run', basis: 'shown', source: 'spec 001 §States and transitions (interrupt expires with the run)' },
  },
})
