// Owns the QMS/SOP review state sets of ours: requirement sets (draft, accepted, superseded). The SOP version
// lifecycle mirrors the vendor and lives with the other connector sets (core/states/connectors.ts).
import { defineMachine } from './state-machine'

/**
 * Requirement sets: extracted as draft; accepting one is the binding decision for a connector SOP (spec 000 §QMS/SOP
 * rule 5); a newer extraction or acceptance for the same SOP version, or the version no longer being effective,
 * supersedes it. Stage gates read `accepted` as a required-record kind.
 */
export const requirementSetStatus = defineMachine({
  name: 'requirement_sets.status',
  noun: 'requirement set',
  states: ['draft', 'accepted', 'superseded'],
  initial: ['draft'],
  source: 'ours; spec 000 §QMS/SOP rule 5 (the binding decision is the acceptance of the requirement set), spec 001 review.sops',
  storage: { model: 'requirementSet', column: 'status', dbType: 'enum requirement_set_status' },
  transitions: {
    accept: {
      from: ['draft'], to: 'accepted', by: 'acceptRequirementSet under review.sops.manage: signed (meaning approval), audited requirement_set.accept',
      basis: 'designed', source: 'spec 000 §QMS/SOP rule 5; the specification shows no transition',
    },
    supersede: {
      from: ['draft', 'accepted'], to: 'superseded', by: 'a newer extraction of the same SOP version is accepted, or the version stops being effective (sync)',
      basis: 'designed', source: 'spec 000 §States and transitions rule 4 (only effective versions bind checks)',
    },
  },
})
