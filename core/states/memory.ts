// Owns the memory record state set (memory and workbench roles specification 001).
import { defineMachine } from './state-machine'

const SETS = 'spec 001 §States and transitions'

/**
 * The spec's rows move records between tiers more than between states ("Transitions of status among proposed,
 * kept, promotion_requested and promoted beyond the rows above ...: not shown"); the rest is the design decisions (docs/contributors.md).
 * A proposed note lives in its write_approval interrupt, never in memory_records (CHECK memory_records_nothing_unkept):
 * keep inserts the row in kept, discard stores nothing. Every other transition is a guarded update of the row.
 * A forgotten row is a tombstone: summary and body erased, source_ref and content_hash kept.
 */
export const memoryRecordStatus = defineMachine({
  name: 'memory_records.status',
  noun: 'memory record',
  states: ['proposed', 'kept', 'promotion_requested', 'promoted', 'forgotten'],
  // kept: a tier-1 note the person kept, or the tier-2 copy promote makes; promotion_requested: an R5 tier-3 copy.
  initial: ['kept', 'promotion_requested'],
  source: SETS,
  quote: { doc: '001', text: 'Memory record status values: proposed, kept, promotion_requested, promoted, forgotten.' },
  storage: { model: 'memoryRecord', column: 'status', dbType: 'enum memory_status' },
  transitions: {
    keep: {
      from: ['proposed'], to: 'kept', by: 'write_approval interrupt answered Keep (tier individual, program.agent_memory.manage), or the person keeps a note themselves: the row is inserted kept; audit memory.keep',
      basis: 'shown', source: SETS,
    },
    discard: {
      from: ['proposed'], to: 'forgotten', by: 'answered Not now, or the interrupt expires with the run: nothing is stored (no row is ever written)',
      basis: 'shown', source: `${SETS} (nothing stored)`,
    },
    promote: {
      from: ['kept'], to: 'promoted', by: 'POST promote by the owner (tier 1, kind preference, vocabulary or rubric_adjustment): a scrubbed tier-2 copy is inserted kept; audit memory.promote',
      basis: 'designed', source: `${SETS} (status of the tier-1 source after promote: not shown)`,
    },
    accept_promotion: {
      from: ['promotion_requested'], to: 'promoted', by: 'R5: accepted by a holder of org.role_memory.manage and confirmed by a current holder of the workbench role',
      basis: 'shown', source: `${SETS} (R5, designed)`,
    },
    forget: {
      from: ['kept', 'promotion_requested', 'promoted'], to: 'forgotten',
      by: 'DELETE /me/memory/{record_id} (own record; audit memory.forget; tombstone by source_ref and content)',
      basis: 'shown', source: SETS,
    },
    remove: {
      from: ['kept', 'promoted'], to: 'forgotten',
      by: 'DELETE /programs/{program_id}/agent-memory/{record_id} by an owner or lead with a reason the person sees (tier 1); audit memory.remove',
      basis: 'shown', source: `${SETS} ("deleted": kept as an erased tombstone so the person sees the reason)`,
    },
    expire: {
      from: ['kept', 'promoted'], to: 'forgotten',
      by: 'job memory_expire: tier 1 90 days after membership in the program ended, or episodic past expires_at (180 days) and not pinned; no audit',
      basis: 'shown', source: SETS,
    },
  },
})
