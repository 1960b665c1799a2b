// Owns the versioned permission catalogue: every key, the persona version that introduced it, and who holds it per persona version.
//
// Source of truth: the twins document's "Authentication" and "Versioning" sections (key and persona counts, the v3/v4
// changes), the memory document's "Authentication" table, and the design decisions (docs/contributors.md). The documents name many keys but not
// all 81 of the base catalogue; the unnamed ones below are completed with plausible keys of the same grammar (marked
// "completion" in the comments) so that every pinned count holds. tests/permissions.test.ts pins every count.
//
// Reading the table: `since` is the persona version that introduced the key; `holders` is a change log, each entry
// applying from its version until the next entry. Everything else (keys per version, bundles, counts) is derived.

export const PROGRAM_PERSONAS = [
  'program_owner',
  'program_lead',
  'scientist',
  'quality_reviewer',
  'manufacturing_specialist',
  'viewer',
] as const
export type ProgramPersona = (typeof PROGRAM_PERSONAS)[number]

// The specification names org_owner and org_admin and says four organisation personas hold org.role_memory.read;
// the other two names are the project's choice.
export const ORG_PERSONAS = ['org_owner', 'org_admin', 'org_auditor', 'org_member'] as const
export type OrgPersona = (typeof ORG_PERSONAS)[number]

export type Persona = ProgramPersona | OrgPersona
export const PERSONAS: readonly Persona[] = [...PROGRAM_PERSONAS, ...ORG_PERSONAS]

export const PRODUCTS = ['org', 'program', 'evidence', 'plans', 'review', 'progress'] as const
export type Product = (typeof PRODUCTS)[number]

// 2 is "today" in the twins document; 3 ships with R3, 4 with R4 (the twins schedule stands: docs/contributors.md, Decisions), and 5 with
// R5 (org.twins.use, plus the memory document's agent_memory change that it calls "persona version 4 (R5)").
export const PERSONA_VERSIONS = [2, 3, 4, 5] as const
export type PersonaVersion = (typeof PERSONA_VERSIONS)[number]

// Releases before R3 run persona version 2 ("today" in the twins document); R6 changes no permission in any
// document, so it keeps persona version 5. core/identity/release.ts decides which release is in force.
export const PERSONA_VERSION_BY_RELEASE = { R1: 2, R2: 2, R3: 3, R4: 4, R5: 5, R6: 5 } as const satisfies Record<
  string,
  PersonaVersion
>

export type PermissionRow = {
  readonly key: string
  readonly since: PersonaVersion
  readonly holders: Readonly<Partial<Record<PersonaVersion, readonly Persona[]>>>
}

const OWNER = 'program_owner'
const LEAD = 'program_lead'
const SCIENTIST = 'scientist'
const QUALITY = 'quality_reviewer'
const MANUFACTURING = 'manufacturing_specialist'

// Owners and leads hold every program-scope key except program.ownership.transfer (owner only), which is why the
// lead bundle is always exactly one key smaller than the owner bundle (68/67, 74/73, 78/77).
const MANAGERS = [OWNER, LEAD] as const
const EVERY_PROGRAM_PERSONA = [...PROGRAM_PERSONAS]
const ALL_BUT_VIEWER = [OWNER, LEAD, SCIENTIST, QUALITY, MANUFACTURING] as const

const ORG_OWNER = 'org_owner'
const ORG_ADMIN = 'org_admin'
const ORG_AUDITOR = 'org_auditor'
const EVERY_ORG_PERSONA = [...ORG_PERSONAS]

const row = <K extends string>(key: K, since: PersonaVersion, holders: PermissionRow['holders']) => ({ key, since, holders }) satisfies PermissionRow

const TABLE = [
  // ---- org (13 at v2-v4, 14 at v5) -------------------------------------------------------------------------
  // Completion: the documents name only org.audit.read, org.role_memory.* and org.twins.use.
  row('org.settings.read', 2, { 2: EVERY_ORG_PERSONA }),
  row('org.settings.update', 2, { 2: [ORG_OWNER, ORG_ADMIN] }),
  row('org.members.read', 2, { 2: EVERY_ORG_PERSONA }),
  row('org.members.manage', 2, { 2: [ORG_OWNER, ORG_ADMIN] }),
  row('org.programs.read', 2, { 2: EVERY_ORG_PERSONA }),
  row('org.programs.create', 2, { 2: [ORG_OWNER, ORG_ADMIN] }),
  row('org.programs.archive', 2, { 2: [ORG_OWNER] }),
  row('org.identity.manage', 2, { 2: [ORG_OWNER] }),
  row('org.budgets.read', 2, { 2: [ORG_OWNER, ORG_ADMIN, ORG_AUDITOR] }),
  row('org.budgets.manage', 2, { 2: [ORG_OWNER, ORG_ADMIN] }),
  // Twins export (GET /orgs/current/twins/export) runs under this key.
  row('org.audit.read', 2, { 2: [ORG_OWNER, ORG_ADMIN, ORG_AUDITOR] }),
  // Tier-3 curation keys. They must sit inside the 13 org keys of the base catalogue: R5 is 92 = 91 + org.twins.use,
  // org keys go from 13 to 14 at R5, "no dormant key is created", and org_owner and org_admin "gain one key" at R5.
  // Tier 3 itself stays reserved for R5 through the release flags (its routes are absent or answer not_implemented),
  // not through the catalogue. Holders follow the memory document: read by the four organisation personas,
  // manage by org owner and org admin.
  row('org.role_memory.read', 2, { 2: EVERY_ORG_PERSONA }),
  row('org.role_memory.manage', 2, { 2: [ORG_OWNER, ORG_ADMIN] }),
  // R5: "org_owner and org_admin gain one key".
  row('org.twins.use', 5, { 5: [ORG_OWNER, ORG_ADMIN] }),

  // ---- program (21 at v2, 27 from v3) ---------------------------------------------------------------------
  // The workbench home needs program.settings.read, so every program persona holds it.
  row('program.settings.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  // Described as 'Update program settings' from R4 (the stage gate becomes the only writer of the stage).
  row('program.settings.update', 2, { 2: MANAGERS }),
  row('program.members.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  // Assigning a workbench role to a member needs this key (memory document).
  row('program.members.manage', 2, { 2: MANAGERS }),
  // Completion: the one owner-only key.
  row('program.ownership.transfer', 2, { 2: [OWNER] }),
  // Per-persona decision metrics (GET P/metrics/decisions) run under this key; quality reviewers audit.
  row('program.audit.read', 2, { 2: [...MANAGERS, QUALITY] }),
  // Connector keys: connections are program-scoped. Quality reviewers read QMS connection health; viewers do not.
  row('program.connections.read', 2, { 2: [...MANAGERS, QUALITY] }),
  row('program.connections.manage', 2, { 2: MANAGERS }),
  // Completion: program-wide records that are not a product's (documents, threads, artifacts, agent runs).
  row('program.documents.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('program.documents.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('program.threads.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('program.threads.manage', 2, { 2: ALL_BUT_VIEWER }),
  row('program.artifacts.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('program.artifacts.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('program.runs.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('program.runs.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('program.tool_calls.read', 2, { 2: [...MANAGERS, QUALITY] }),
  row('program.signatures.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('program.exports.create', 2, { 2: MANAGERS }),
  // Memory keys close the base catalogue: the twins document appends its keys "after program.agent_memory.manage".
  // Viewers have no twin, hence no twin memory.
  row('program.agent_memory.read', 2, { 2: ALL_BUT_VIEWER }),
  // Held by scientist, lead and owner at v3 (memory document); the memory document's later change gives it to the
  // quality reviewer and the manufacturing specialist, which the design decisions place at persona version 5 (R5).
  row('program.agent_memory.manage', 2, {
    2: [...MANAGERS, SCIENTIST],
    5: [...MANAGERS, SCIENTIST, QUALITY, MANUFACTURING],
  }),
  // R3 twin and hand-off keys, holders exactly as the twins document's Authentication table.
  row('program.twins.read', 3, { 3: [...MANAGERS, QUALITY] }),
  row('program.twins.read_own', 3, { 3: EVERY_PROGRAM_PERSONA }),
  row('program.twins.use', 3, { 3: ALL_BUT_VIEWER }),
  row('program.twins.manage', 3, { 3: MANAGERS }),
  row('program.handoffs.read', 3, { 3: EVERY_PROGRAM_PERSONA }),
  row('program.handoffs.manage', 3, { 3: ALL_BUT_VIEWER }),

  // ---- evidence (13) --------------------------------------------------------------------------------------
  row('evidence.hypotheses.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('evidence.hypotheses.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  // v3: the scientist, now wearing a twin, stops approving its own product's records.
  row('evidence.hypotheses.approve', 2, { 2: [...MANAGERS, SCIENTIST], 3: MANAGERS }),
  row('evidence.findings.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('evidence.findings.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('evidence.questions.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('evidence.questions.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('evidence.gaps.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('evidence.gaps.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('evidence.sources.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('evidence.sources.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  // Completion: a person's own literature search draws from the same rate budgets as agent tool calls.
  row('evidence.literature.search', 2, { 2: [...MANAGERS, SCIENTIST] }),
  // Skills with run role evidence (tox.*, chem.sar_table_build, evidence.assertion_lint) need this key.
  row('evidence.agents.use', 2, { 2: [...MANAGERS, SCIENTIST] }),

  // ---- plans (14) -----------------------------------------------------------------------------------------
  row('plans.experiments.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('plans.experiments.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('plans.protocols.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('plans.protocols.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('plans.reports.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('plans.reports.manage', 2, { 2: [...MANAGERS, SCIENTIST] }),
  row('plans.plans.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  // CMC / process scientist: plans.plans is written by both the scientist and the manufacturing specialist.
  row('plans.plans.manage', 2, { 2: [...MANAGERS, SCIENTIST, MANUFACTURING] }),
  // v3: the scientist loses plan approval (twins document, Versioning).
  row('plans.plans.approve', 2, { 2: [...MANAGERS, SCIENTIST], 3: MANAGERS }),
  // Completion: protocol templates and study records.
  row('plans.templates.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('plans.templates.manage', 2, { 2: MANAGERS }),
  row('plans.studies.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('plans.studies.manage', 2, { 2: MANAGERS }),
  row('plans.agents.use', 2, { 2: [...MANAGERS, SCIENTIST, MANUFACTURING] }),

  // ---- review (10 at v3, 11 from v4) ----------------------------------------------------------------------
  row('review.sops.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  // Checks and requirement sets are both written under this key; the scientist lacks it, so a regulatory
  // strategist's requirement set is a hand-off to the quality reviewer.
  row('review.sops.manage', 2, { 2: [...MANAGERS, QUALITY] }),
  // Local SOPs only; connector SOPs answer 409 sop_external.
  row('review.sops.approve', 2, { 2: [...MANAGERS, QUALITY] }),
  row('review.findings.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('review.findings.manage', 2, { 2: [...MANAGERS, QUALITY] }),
  row('review.deviations.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('review.deviations.manage', 2, { 2: [...MANAGERS, QUALITY] }),
  // Completion: corrective and preventive actions.
  row('review.capas.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('review.capas.manage', 2, { 2: [...MANAGERS, QUALITY] }),
  // qa.check_readiness (run role review) needs this key.
  row('review.agents.use', 2, { 2: [...MANAGERS, QUALITY] }),
  row('review.stage_reviews.approve', 4, { 4: [...MANAGERS, QUALITY] }),

  // ---- progress (10 at v3, 13 from v4) --------------------------------------------------------------------
  row('progress.milestones.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('progress.milestones.manage', 2, { 2: [...MANAGERS, MANUFACTURING] }),
  row('progress.dependencies.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('progress.dependencies.manage', 2, { 2: [...MANAGERS, MANUFACTURING] }),
  row('progress.open_items.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('progress.open_items.manage', 2, { 2: MANAGERS }),
  row('progress.approvals.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('progress.approvals.manage', 2, { 2: MANAGERS }),
  // Completion: the critical-path view.
  row('progress.timeline.read', 2, { 2: EVERY_PROGRAM_PERSONA }),
  row('progress.agents.use', 2, { 2: [...MANAGERS, MANUFACTURING] }),
  row('progress.stages.read', 4, { 4: EVERY_PROGRAM_PERSONA }),
  row('progress.stages.manage', 4, { 4: [...MANAGERS, MANUFACTURING] }),
  row('progress.stages.approve', 4, { 4: MANAGERS }),
]

/** Every permission key of the catalogue, as a type: a typo in `assertCan` or a command's permission does not compile. */
export type PermissionKey = (typeof TABLE)[number]['key']
export const PERMISSION_TABLE: readonly PermissionRow[] = TABLE

// ---- derived views --------------------------------------------------------------------------------------------

export function productOf(key: string): Product {
  return key.slice(0, key.indexOf('.')) as Product
}

/** Org keys are checked against organisation personas; every other product is program scope. */
export function isOrgKey(key: string): boolean {
  return productOf(key) === 'org'
}

function holdersAt(r: PermissionRow, version: PersonaVersion): readonly Persona[] {
  if (version < r.since) return []
  let current: readonly Persona[] = []
  for (const v of PERSONA_VERSIONS) {
    if (v > version) break
    current = r.holders[v] ?? current
  }
  return current
}

function build<T>(f: (version: PersonaVersion) => T): Readonly<Record<PersonaVersion, T>> {
  return Object.fromEntries(PERSONA_VERSIONS.map((v) => [v, f(v)])) as Record<PersonaVersion, T>
}

/** Keys of the catalogue per persona version, in table order. */
export const PERMISSIONS_BY_VERSION: Readonly<Record<PersonaVersion, readonly string[]>> = build((v) =>
  Object.freeze(PERMISSION_TABLE.filter((r) => r.since <= v).map((r) => r.key)),
)

/** Every key that exists at some persona version. */
export const ALL_PERMISSION_KEYS: ReadonlySet<string> = new Set(PERMISSION_TABLE.map((r) => r.key))

export type Bundle = ReadonlySet<string>

/** Persona version -> persona (program and organisation) -> the keys that persona holds. */
export const PERSONA_BUNDLES: Readonly<Record<PersonaVersion, Readonly<Record<Persona, Bundle>>>> = build((v) => {
  const bundles = Object.fromEntries(PERSONAS.map((p) => [p, new Set<string>()])) as Record<Persona, Set<string>>
  for (const r of PERMISSION_TABLE) for (const p of holdersAt(r, v)) bundles[p].add(r.key)
  return bundles
})

export function isPersonaVersion(v: number): v is PersonaVersion {
  return (PERSONA_VERSIONS as readonly number[]).includes(v)
}

export function isPersona(p: string): p is Persona {
  return (PERSONAS as readonly string[]).includes(p)
}

/**
 * Whether the union of the personas' bundles holds `key`, without building the union: what a permission check asks
 * (building it cost 2.3 % of the workbench subgraph's CPU under the role home's load). Same rules as bundleFor.
 */
export function bundlesHold(personas: readonly string[], version: number, key: string): boolean {
  if (!isPersonaVersion(version)) throw new RangeError(`unknown persona version ${version}`)
  const bundles = PERSONA_BUNDLES[version]
  for (const p of personas) if (isPersona(p) && bundles[p].has(key)) return true
  return false
}

/**
 * The mapped bundle of several personas is their union. Unknown persona names contribute nothing (a stale role
 * assignment must not fail a request); an unknown version is a programming error.
 */
export function bundleFor(personas: readonly string[], version: number): Set<string> {
  if (!isPersonaVersion(version)) throw new RangeError(`unknown persona version ${version}`)
  const out = new Set<string>()
  for (const p of personas) {
    if (!isPersona(p)) continue
    for (const k of PERSONA_BUNDLES[version][p]) out.add(k)
  }
  return out
}
