// Owns the memory record state set (memory and workbench roles specification 001).
import { defineMachine } from '../state-machine'

const SETS = 'spec 001 §States and transitions'

/**
 * The spec's rows move records between tiers more than between states ("Transitions of status among proposed,
 * kept, promotion_requested and promoted beyond the rows above ...: not shown"); the rest is DESIGN.md §11.
 */
export const memoryRecordStatus = defineMachine({
  name: 'memory_records.status',
  noun: 'memory record',
  states: ['proposed', 'kept', 'promotion_requested', 'promoted', 'forgotten'],
  // proposed: filed by memory.propose_note; kept: a tier-2 copy made by promote; promotion_requested: an R5 tier-3 copy.
  initial: ['proposed', 'kept', 'promotion_requested'],
  source: SETS,
  quote: { doc: '001', text: 'Memory record status values: proposed, kept, promotion_requested, promoted, forgotten.' },
  storage: { model: null, column: 'status', note: 'table not created yet' },
  transitions: {
    keep: {
      from: ['proposed'], to: 'kept', by: 'write_approval interrupt answered Keep (tier individual, program.agent_memory.manage); audit memory.keep',
      basis: 'shown', source: SETS,
    },
    discard: {
      from: ['proposed'], to: 'forgotten', by: 'answered Not now, or the interrupt expires with the run (nothing stored: the note is never readable)',
      basis: 'designed', source: `DESIGN.md §11; ${SETS} (nothing stored)`,
    },
    promote: {
      from: ['kept'], to: 'promoted', by: 'POST promote by the owner (kind preference, vocabulary or rubric_adjustment); a scrubbed tier-2 copy appears kept; audit memory.promote',
      basis: 'designed', source: `${SETS} (status of the tier-1 source after promote: not shown)`,
    },
    accept_promotion: {
      from: ['promotion_requested'], to: 'promoted', by: 'R5: accepted by a holder of org.role_memory.manage and confirmed by a current holder of the workbench role',
      basis: 'shown', source: `${SETS} (R5, designed)`,
    },
    forget: {
      from: ['proposed', 'kept', 'promotion_requested', 'promoted'], to: 'forgotten',
      by: 'DELETE /me/memory/{record_id} (own record; audit memory.forget; tombstone by source_ref), or job memory_expire',
      basis: 'shown', source: SETS,
    },
  },
})
