// Owns the error catalogue: every refusal code of the three specification documents and of this service, with its
// GraphQL type name, HTTP status, default message and the data fields its error object carries.
//
// Statuses: the documents give 409 (sop_external), 422 (kind_not_promotable, workbench_role_not_held, unit_*,
// invalid_input) and 'typed' for RateLimited; the 'name only' codes have no documented status, so the ones below
// are the project's choice (409 for a conflict with current state, 422 for a refused value, 403 for a refusal of
// who may act). A status is what the REST shim answers and what the error object reports; GraphQL answers 200.

/** A data field of an error object: its GraphQL type and whether it may be null. */
export interface ErrorDataField {
  readonly type: 'String' | 'Int' | 'ID' | '[InputIssue]' | '[String]'
  readonly nullable?: boolean
  readonly description?: string
}

export interface ErrorSpec {
  /** The GraphQL object type name (implements Error); a typed client switches on it. */
  readonly type: string
  readonly status: number
  readonly message: string
  /** Where the code comes from: connectors, memory or twins document, or ours. */
  readonly source: 'connectors' | 'memory' | 'twins' | 'ours'
  /** Data the error object carries beyond code, message and field. */
  readonly data?: Readonly<Record<string, ErrorDataField>>
}

const s = (type: string, status: number, source: ErrorSpec['source'], message: string, data?: ErrorSpec['data']): ErrorSpec =>
  ({ type, status, source, message, ...(data ? { data } : {}) })

export const ERROR_CATALOGUE = {
  // ---- every document ---------------------------------------------------------------------------------------
  invalid_input: s('InvalidInput', 422, 'twins', 'The input is not valid.', {
    issues: { type: '[InputIssue]', description: 'Every problem found, each with the input field it concerns.' },
  }),
  not_found: s('NotFound', 404, 'ours', 'Not found.', { resource: { type: 'String', description: 'What was looked for, e.g. Program.' } }),
  invalid_transition: s('InvalidTransition', 409, 'ours', 'That change of status is not allowed from the current status.', {
    from: { type: 'String', nullable: true, description: 'The current status.' },
    to: { type: 'String', nullable: true, description: 'The status asked for.' },
  }),

  // ---- connectors document ----------------------------------------------------------------------------------
  sop_external: s('SopExternal', 409, 'connectors', 'This SOP is managed in the connected QMS; approve it there.'),
  not_supported: s('NotSupported', 501, 'connectors', 'The provider does not support this operation.'),

  // ---- memory and workbench roles document ------------------------------------------------------------------
  kind_not_promotable: s('KindNotPromotable', 422, 'memory', 'Episodic and lesson records cannot be kept across programs.'),
  workbench_role_not_held: s('WorkbenchRoleNotHeld', 422, 'memory', 'That workbench role is outside the personas you hold here.'),
  not_implemented: s('NotImplemented', 501, 'memory', 'This operation is not implemented.'),
  harness_denied: s('HarnessDenied', 403, 'memory', 'The harness denied this action.'),

  // ---- twins and skills document ----------------------------------------------------------------------------
  stale_proposal: s('StaleProposal', 409, 'twins', 'Changed since proposed.', {
    currentBasis: { type: 'String', description: 'The basis the proposal would have to be made on now.' },
  }),
  handoff_exists: s('HandoffExists', 409, 'twins', 'A hand-off of this item exists already.', {
    handoffId: { type: 'ID', description: 'The hand-off that exists.' },
  }),
  self_handoff: s('SelfHandoff', 422, 'twins', 'You cannot hand off to yourself.'),
  twin_paused: s('TwinPaused', 409, 'twins', 'This twin is paused.'),
  twin_active_exists: s('TwinActiveExists', 409, 'twins', 'An active twin exists already for this persona.'),
  duty_unavailable: s('DutyUnavailable', 422, 'twins', 'This duty is not available to the twin.'),
  delegation_invalid: s('DelegationInvalid', 422, 'twins', 'This delegation is not valid.'),
  batch_item_forbidden: s('BatchItemForbidden', 403, 'twins', 'You may not act on an item of this batch.'),
  bound_user_only: s('BoundUserOnly', 403, 'twins', 'Only the person this twin is bound to may do this.'),
  baseline_missing: s('BaselineMissing', 409, 'twins', 'There is no baseline to compare against.'),
  gate_incomplete: s('GateIncomplete', 409, 'twins', 'The stage gate is not complete.', {
    missing: { type: '[String]', description: "What is missing: one line per required record not present ('<label>: <why>')." },
  }),
  gate_stage_restricted: s('GateStageRestricted', 409, 'twins', 'The stage gate does not allow this at the current stage.'),
  reviewer_role_required: s('ReviewerRoleRequired', 403, 'twins', 'A reviewer role is required.'),
  same_signer: s('SameSigner', 409, 'twins', 'The same person cannot sign twice.'),
  stage_via_gate: s('StageViaGate', 409, 'twins', 'Stages change only through their gate.'),
  unit_required: s('UnitRequired', 422, 'twins', 'A unit is required for this value.'),
  unit_unsupported: s('UnitUnsupported', 422, 'twins', 'This unit is not supported here.'),
  unit_mismatch: s('UnitMismatch', 422, 'twins', 'This unit does not match the quantity expected.'),

  // ---- vendors (connector layer, shared by every provider) --------------------------------------------------
  RateLimited: s('RateLimited', 429, 'connectors', 'A rate budget is exhausted.', {
    source: { type: 'String', description: 'The source whose budget is exhausted.' },
    retryAfterSeconds: { type: 'Int', description: 'When to try again, in seconds.' },
  }),
  fresh_sign_in_required: s('FreshSignInRequired', 401, 'ours', 'An electronic signature needs a fresh sign-in: sign in again, then sign.'),
  egress_refused: s('EgressRefused', 422, 'ours', 'The address is private or reserved, which connections may not reach.', {
    host: { type: 'String', description: 'The host name or address that was refused.' },
  }),
  VendorUnavailable: s('VendorUnavailable', 503, 'ours', 'The vendor is unavailable.', {
    source: { type: 'String' },
    reason: { type: 'String', description: 'server_error, timeout or network' },
    status: { type: 'Int', nullable: true, description: 'The vendor\'s HTTP status, if it answered.' },
  }),
  VendorAuthFailed: s('VendorAuthFailed', 502, 'ours', 'The vendor rejected the connection\'s client credentials.', {
    source: { type: 'String' },
    status: { type: 'Int' },
  }),
  VendorNotFound: s('VendorNotFound', 404, 'ours', 'The vendor does not know this resource.', {
    source: { type: 'String' },
    resource: { type: 'String' },
  }),
  VendorRequestRejected: s('VendorRequestRejected', 502, 'ours', 'The vendor rejected the request.', {
    source: { type: 'String' },
    status: { type: 'Int' },
    vendorMessage: { type: 'String' },
  }),
  VendorResponseInvalid: s('VendorResponseInvalid', 502, 'ours', 'The vendor answered an unexpected shape.', {
    source: { type: 'String' },
    detail: { type: 'String' },
  }),
  AttachmentTooLarge: s('AttachmentTooLarge', 413, 'ours', 'The attachment is too large to fetch.', {
    fileId: { type: 'String' },
    size: { type: 'Int' },
    limit: { type: 'Int' },
  }),

  // ---- ours: programs and members ---------------------------------------------------------------------------
  slug_taken: s('SlugTaken', 409, 'ours', 'A program with this slug exists already.'),
  not_a_member: s('NotAMember', 409, 'ours', 'That person is not a member of this program.'),
  not_assigned: s('NotAssigned', 409, 'ours', 'That person does not hold this persona here.'),
  last_owner: s('LastOwner', 409, 'ours', 'A program keeps at least one program owner.'),
  // a refusal of who acts on a thing (a hand-off's sender or recipients, a note's person): FORBIDDEN would name a
  // permission the caller holds, which is not what is wrong
  not_a_party: s('NotAParty', 403, 'ours', 'Only the people this concerns may do this.'),

  // ---- ours: connections and launches -----------------------------------------------------------------------
  unknown_provider: s('UnknownProvider', 422, 'ours', 'This provider is not in the registry.'),
  consent_required: s('ConsentRequired', 422, 'ours', 'Consent is required.'),
  scope_rules_required: s('ScopeRulesRequired', 422, 'ours', 'Map at least one project or document type.'),
  connection_exists: s('ConnectionExists', 409, 'ours', 'This program already has an active connection to this provider.'),
  connection_disconnected: s('ConnectionDisconnected', 409, 'ours', 'This connection was disconnected; create a new one.'),
  connection_not_ready: s('ConnectionNotReady', 409, 'ours', 'The connection is not ready yet.'),
  credentials_missing: s('CredentialsMissing', 409, 'ours', 'Store the client id and secret first (onboarding step d).'),
  reason_required: s('ReasonRequired', 422, 'ours', 'Give a reason for this controlled change.'),
  unsupported_api_version: s('UnsupportedApiVersion', 409, 'ours', 'This api_version is not supported.'),
  launch_not_found: s('LaunchNotFound', 404, 'ours', 'This launch link is not known here.'),
  launch_used: s('LaunchUsed', 409, 'ours', 'This launch link was used already.'),
  launch_expired: s('LaunchExpired', 410, 'ours', 'This launch link expired.'),

  // ---- ours: skills -----------------------------------------------------------------------------------------
  skill_failed: s('SkillFailed', 500, 'ours', 'The skill could not complete; nothing was stored.'),
  skill_timeout: s('SkillTimeout', 504, 'ours', 'The skill did not finish in time; nothing was stored.'),

  // ---- ours: twin memory ------------------------------------------------------------------------------------
  memory_note_refused: s('MemoryNoteRefused', 422, 'ours', 'This note was not kept: memory keeps plain notes, never instructions, hidden content or judgements of people.', {
    reasons: { type: '[String]', description: 'What the sanitiser found, one entry per reason (instruction_override, delimiter, encoded_payload, evaluative_language, too_long, empty).' },
  }),
  // ---- ours: inbox operations and signed inbox links --------------------------------------------------------
  decision_required: s('DecisionRequired', 409, 'ours', 'This item resolves when you decide or sign what it points to; resolve cannot stand in for that.'),
  inbox_link_invalid: s('InboxLinkInvalid', 404, 'ours', 'This link is not valid.'),
  inbox_link_used: s('InboxLinkUsed', 409, 'ours', 'This link was used already.'),
  inbox_link_expired: s('InboxLinkExpired', 410, 'ours', 'This link expired. Open the inbox instead.'),
  // ---- ours: literature connector ---------------------------------------------------------------------------
  evidence_query_budget_exhausted: s('EvidenceQueryBudgetExhausted', 429, 'ours', 'This turn has used its literature queries (programs.settings.evidence_query_budget).', {
    budget: { type: 'Int', description: 'Queries allowed per turn in this program.' },
    used: { type: 'Int', description: 'Queries this turn has run.' },
  }),
} as const satisfies Record<string, ErrorSpec>

export type ErrorCode = keyof typeof ERROR_CATALOGUE
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[]

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code)
}
