// Owns every fixed phrase of the three specification documents, verbatim, grouped by document, with formatters for templates.
//
// tests/copy.test.ts proves each string here occurs verbatim in a document, so nothing may be reworded or invented.
// Templates keep their placeholders (<N>, <Name>, <date>, ...) exactly as written; formatters fill them.

/** Fills each <placeholder> of a template in order of appearance. */
function fillInOrder(template: string, values: readonly (string | number)[]): string {
  let i = 0
  const out = template.replace(/<[^<>]+>/g, (m) => {
    if (i >= values.length) throw new RangeError(`missing value for ${m} in '${template}'`)
    return String(values[i++])
  })
  if (i !== values.length) throw new RangeError(`too many values for '${template}'`)
  return out
}

// ---- Connector Layer Specification (000) ------------------------------------------------------------------------

export const CONNECTORS = {
  /** How the mirrored notebook review state is displayed. */
  recordedInTheNotebook: 'recorded in the notebook',
  /** Prompt shown on the notebook canvas. */
  checkAgainstEffectiveSop: 'Check this entry against the effective SOP',
  /** Link the canvas offers after a launch id was created. */
  openInTheService: 'Open in the service',
  /** The literature query policy, step by step, as the run rail shows it ("Query policy (visible in the run rail)"). */
  queryPolicy: [
    'search the European literature index first',
    'use the DOI metadata registry for DOI metadata',
    'use the citation-graph service for citations and open-access location',
    'fetch full text only for licences cc0, cc_by and cc_by_sa',
  ],
  /** Run-rail text for a typed RateLimited; source X and N seconds are placeholders. */
  budgetExhaustedTemplate: 'budget exhausted for source X, retry after N s',
  /** The notebook onboarding order, steps (a) to (e). */
  onboardingSteps: [
    'create the connection',
    'copy its hook_url',
    'the partner admin creates the vendor app from the manifest with the canvas feature',
    'store the client id and secret',
    'run the health check',
  ],
} as const

export function budgetExhausted(source: string, retryAfterSeconds: number): string {
  return `budget exhausted for source ${source}, retry after ${retryAfterSeconds} s`
}

// ---- Memory and Workbench Roles Specification (001) -------------------------------------------------------------

export const MEMORY = {
  neverUsedToTrain: 'Human decisions, inbox feedback, lens scorecards and memory are never used to train or tune any model.',
  savesNothingUnlessYouSay: 'Your twin saves nothing unless you say so.',
  sharedMemoryHoldsMethods: 'Shared memory holds methods, never program facts.',
  /** Fixed prefix marking the memory brief as data inside a run. */
  briefPrefix: '<<<memory:...>>>',
  /** The person's view after an oversight read of their tier 1. */
  viewedByTemplate: 'Viewed by <Name> on <date>.',
  /** Isolation wording; the documents forbid 'row-level security' for R4. */
  isolationWording: 'organisation column plus namespace check',
} as const

/** The memory panel, its regions in fixed order, and its control lines. */
export const MEMORY_PANEL = {
  regions: ['In this program', 'About you, everywhere', 'Shared by <role plural>'],
  sharedByTemplate: 'Shared by <role plural>',
  episodicReason: 'Your twin remembers this because you decided it.',
  confirmForget: 'Confirm forget',
  forgotten: 'Forgotten. Nothing from this record is used again.',
  /** Keep across programs disabled: the persona lacks the key. */
  cannotKeepAcrossPrograms: 'Your persona cannot keep notes across programs in this release.',
  /** Keep across programs disabled: the kind does not travel. */
  kindDoesNotTravel: 'Only preferences, vocabulary and rubric adjustments can be kept across programs.',
  /** Suggest for the role, in R4. */
  suggestArrivesLater: 'Arrives with shared memory in a later release.',
  /** Control labels named in the text. */
  controls: {
    keep: 'Keep',
    notNow: 'Not now',
    forget: 'Forget',
    remove: 'Remove',
    keepAcrossPrograms: 'Keep across programs',
    suggestForTheRole: 'Suggest for the role',
  },
} as const

export const WORKBENCH = {
  /** Picker sentence. */
  pickerSentence: 'Workbench roles change what you see first, never what you may do',
  /** Home prompt while no workbench role is set. */
  chooseYourWorkbenchRole: 'Choose your workbench role',
  /** Member header after a lead assigned the role. */
  setByTemplate: 'Set by <Name> on <date>. Change',
  /** Role home regions, in fixed order. */
  homeRegions: ["Today's decisions", 'My open questions', 'My evidence board', "My program in this role's terms"],
  allRecords: 'All records',
  more: 'More',
  /** Display groupings of review.sops records for the quality reviewer. */
  reviewSopsGroupings: ['checks', 'requirement sets'],
  proposalFooterTemplate: "Proposed by <Name>'s twin (agent, working as <workbench role>); decided by <Name>",
  /** The footer's middle under a neutral persona harness. */
  workingAsPersonaTemplate: 'working as <persona name>',
} as const

export function viewedBy(name: string, date: string): string {
  return fillInOrder(MEMORY.viewedByTemplate, [name, date])
}

export function sharedBy(rolePlural: string): string {
  return fillInOrder(MEMORY_PANEL.sharedByTemplate, [rolePlural])
}

export function setBy(name: string, date: string): string {
  return fillInOrder(WORKBENCH.setByTemplate, [name, date])
}

/** Pass the workbench role name, or the persona name under a neutral persona harness. */
export function proposedByWorkingAs(author: string, workingAs: string, decidedBy: string): string {
  return fillInOrder(WORKBENCH.proposalFooterTemplate, [author, workingAs, decidedBy])
}

// ---- Persona Twins and Skills Specification (002) ---------------------------------------------------------------

export const TWINS = {
  twinProposesYouDecide: 'Your twin proposes. You decide.',
  twinNeverApproves: 'Your twin never approves, signs or sends.',
  /** Stale proposal card (stale_proposal). */
  changedSinceProposed: 'Changed since proposed',
  declineNeedsReason: 'Declining needs a reason; it is stored as evaluation data.',
  viewersHaveNoTwin: 'Viewers have no twin. Nothing waits for you.',
  /** The only way a mention starts a run. */
  letMyTwinLook: 'Let my twin look at this',
  /** Private thread composer. */
  shareThisThread: 'Share this thread to mention colleagues.',
  routedUnderDelegationTemplate: 'Routed under delegation from <Name>; decided by <Name> in their own right.',
  /** program.settings.update as re-described in R4. */
  updateProgramSettings: 'Update program settings',
} as const

/** The twins document's 'Fixed phrases' table, in its order. */
export const FIXED_PHRASES = {
  /** inbox heading, program home */
  decisionsWaiting: 'Decisions waiting for you',
  /** twin panel when paused */
  paused: 'Paused. Nothing runs until you resume.',
  /** inbox empty state */
  nothingWaitingTemplate: "Nothing waiting. Your twin's next pass is at <time>.",
  /** expired proposal card */
  expiredNothingWritten: 'Expired, nothing written',
  /** brief under backpressure */
  filingPausedTemplate: 'Filing paused: <N> decisions waiting',
  /** record footer */
  proposedByTemplate: "Proposed by <Name>'s twin (agent); decided by <Name>",
  /** every twin-written artifact */
  agentGeneratedDraft: 'Agent-generated draft, unsigned.',
  /** interim copy on site, docs and deck */
  everyDecisionHuman: 'Every decision stays human and recorded. Timing claims wait for measured data.',
  /** stage gate card (R4) */
  requiredRecordsTemplate: '<N> of <M> required records present',
  /** closed gate footer (R4) */
  gateClosedTemplate: 'Stage gate reviewed by <Name> (reviewed) and closed by <Name> (approved)',
} as const

export const SKILLS = {
  /** Method line of a skill output; n is the version. */
  methodTemplate: 'Method: <name> (<guidance>, retrieved <date>), version n',
  howComputed: 'How this was computed',
  /** tox.fih_dose_projection header and warnings. */
  fihProjectionHeader: 'Projection for your decision, not a starting dose',
  padMabelNotComputed: 'PAD/MABEL not computed',
  exposureNotComputed: 'exposure-based projection not computed',
  /** qa.data_integrity_checklist output (R5). */
  checkedAgainstTemplate: 'checked against <document> <version>',
  /** patent.mention_scan header and family label (R6). */
  patentScanHeader: 'Compounds mentioned in patent documents; not claim coverage, not an opinion',
  forCounsel: 'for counsel',
} as const

/** Words the documents forbid in copy ("never ..."); kept here so a copy lint can refuse them. */
export const NEVER_WRITTEN = {
  /** A twin run footer never says this. */
  requestedBy: 'Requested by',
  /** R4 has no database-level policy. */
  rowLevelSecurity: 'row-level security',
  /** qa.data_integrity_checklist never claims this. */
  dataIntegrityAssured: 'data integrity assured',
} as const

export function routedUnderDelegation(principal: string, delegate: string): string {
  return fillInOrder(TWINS.routedUnderDelegationTemplate, [principal, delegate])
}

export function nothingWaiting(nextPassAt: string): string {
  return fillInOrder(FIXED_PHRASES.nothingWaitingTemplate, [nextPassAt])
}

export function filingPaused(openDecisions: number): string {
  return fillInOrder(FIXED_PHRASES.filingPausedTemplate, [openDecisions])
}

export function proposedBy(author: string, decidedBy: string): string {
  return fillInOrder(FIXED_PHRASES.proposedByTemplate, [author, decidedBy])
}

export function requiredRecordsPresent(present: number, required: number): string {
  return fillInOrder(FIXED_PHRASES.requiredRecordsTemplate, [present, required])
}

export function gateClosedBy(reviewer: string, approver: string): string {
  return fillInOrder(FIXED_PHRASES.gateClosedTemplate, [reviewer, approver])
}

export function methodLine(name: string, guidance: string, retrievedOn: string, version: string | number): string {
  return fillInOrder(SKILLS.methodTemplate, [name, guidance, retrievedOn]).replace(/version n$/, `version ${version}`)
}

export function checkedAgainst(document: string, version: string): string {
  return fillInOrder(SKILLS.checkedAgainstTemplate, [document, version])
}
