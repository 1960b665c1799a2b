// Owns the connector layer's state sets (connector specification 000 and ours): connections, SOP versions,
// webhook delivery outcomes and launch ids.
import { defineMachine } from './state-machine'

const SPEC = 'spec 000 §States and transitions'

/** Connections (ours: the specification names the disconnect operation but no status values). */
export const connectionStatus = defineMachine({
  name: 'connections.status',
  noun: 'connection',
  states: ['active', 'disconnected'],
  initial: ['active'],
  source: 'ours; spec 000 §Adapter contract names the operation disconnect',
  storage: { model: 'connection', column: 'status', dbType: 'enum connection_status' },
  transitions: {
    disconnect: {
      from: ['active'], to: 'disconnected', by: 'disconnectConnection: credentials erased, webhooks answer 410, the mirror stays',
      basis: 'designed', source: 'the specification shows no transition; a disconnected connection is history, reconnecting creates a new one',
    },
  },
})

/**
 * SOP versions mirror the QMS, which is authoritative for lifecycle state (spec 000 §QMS/SOP rule 5): the mirror
 * records whatever the vendor's label maps to, so every observed state is reachable from every state. Only
 * local SOPs move by a local act (approve).
 */
const SOP_STATES = ['draft', 'in_review', 'effective', 'superseded', 'obsolete', 'unmapped'] as const
const observed = (to: (typeof SOP_STATES)[number], by: string) => ({
  from: SOP_STATES, to, by, basis: 'shown' as const, source: `${SPEC} rule 1 (mapped per connection from the vendor's lifecycle labels)`,
})
export const sopLifecycle = defineMachine({
  name: 'sop_versions.lifecycle_state',
  noun: 'SOP version',
  states: SOP_STATES,
  initial: SOP_STATES,
  source: SPEC,
  quote: { doc: '000', text: '| sop_versions.lifecycle_state | draft, in_review, effective, superseded, obsolete, unmapped |' },
  storage: { model: null, column: 'lifecycle_state', note: 'enum sop_lifecycle_state on sop_versions; the sync writes whatever the vendor label maps to (domain/qms/sync.ts), approve_local is a guarded update on local SOPs (qms/sops.ts)' },
  transitions: {
    observe_draft: observed('draft', 'sync: the vendor label maps to draft'),
    observe_in_review: observed('in_review', 'sync: the vendor label maps to in_review'),
    observe_effective: observed('effective', 'sync: the vendor label maps to effective (effective_at from the source, else first observation)'),
    observe_superseded: observed('superseded', 'sync: the vendor label maps to superseded, or a successor version became effective'),
    observe_obsolete: observed('obsolete', 'sync: the vendor label maps to obsolete'),
    observe_unmapped: observed('unmapped', 'sync: a label with no mapping (ineligible, surfaced in health)'),
    approve_local: {
      from: ['draft', 'in_review'], to: 'effective', by: 'local approve operation, local SOPs only',
      basis: 'designed', source: 'spec 000 §QMS/SOP rule 5 (local approve applies to local SOPs only); transitions not shown (rule 5 of §States)',
    },
  },
})

/** A delivery's outcome is decided at receipt, in the one statement that stores it (domain/webhooks/ingress.ts). */
export const webhookOutcome = defineMachine({
  name: 'webhook_deliveries.outcome',
  noun: 'webhook delivery',
  states: ['enqueued', 'ignored', 'rejected'],
  initial: ['enqueued', 'ignored', 'rejected'],
  source: SPEC,
  quote: { doc: '000', text: '| webhook_deliveries.outcome | enqueued, ignored, rejected |' },
  storage: { model: null, column: 'outcome', note: 'enum webhook_outcome, written once at receipt; processing is processed_at' },
  transitions: {},
})

/** Launch ids: the lifecycle is derived from used_at and expires_at; the row is deleted 24 h after expiry. */
export const launchIdLifecycle = defineMachine({
  name: 'launch_ids',
  noun: 'launch id',
  states: ['valid', 'used', 'expired'],
  initial: ['valid'],
  source: SPEC,
  quote: { doc: '000', text: '| launch_ids | created on a canvas click; valid once; expires 10 minutes after creation; swept 24 h after expiry |' },
  storage: { model: null, column: 'used_at, expires_at', note: 'derived from used_at and expires_at; swept (deleted) 24 h after expiry' },
  transitions: {
    use: { from: ['valid'], to: 'used', by: 'the launch request that presents it first (valid once)', basis: 'shown', source: SPEC },
    expire: { from: ['valid'], to: 'expired', by: '10 minutes after creation', basis: 'shown', source: SPEC },
  },
})
