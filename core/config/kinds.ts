// Owns the release-dependent kind enumerations (run, interrupt, notification and artifact kinds, signature and
// approval target types) and the tone map a console renders statuses with; tests/platform/kinds.test.ts pins every count.
//
// The twins document names only what R3 and R4 add and the counts before and after ("11 to 13", "56 to 61 entries
// (12 pass, 16 review, 7 fail, 4 info, 22 neutral)"). The base sets are completed with plausible values of this
// service, marked "completion" below; the additions are the document's, verbatim. Releases before R3 have the base set.
import { RELEASES, type Release } from './env'

/** A kind set as data: what every release has, then what each release adds. */
interface Versioned<T extends string> {
  readonly base: readonly T[]
  readonly added: Readonly<Partial<Record<Release, readonly T[]>>>
}

function at<T extends string>(set: Versioned<T>, release: Release): readonly T[] {
  const upTo = RELEASES.slice(0, RELEASES.indexOf(release) + 1)
  return [...set.base, ...upTo.flatMap((r) => set.added[r] ?? [])]
}

// completion: eleven run kinds of the agent layer before twins (chat turns, tool-driven drafting, the memory note).
const AGENT_RUN = {
  base: [
    'chat', 'evidence_search', 'evidence_draft', 'plan_draft', 'review_check', 'sop_readiness', 'literature_watch',
    'document_extract', 'report_draft', 'memory_note', 'connector_triage',
  ],
  added: { R3: ['twin_cycle', 'twin_handoff'], R4: ['stage_readiness'] },
} as const satisfies Versioned<string>

// completion: write_approval is named by the memory document; the other three are plausible interrupts of a run.
const INTERRUPT = {
  base: ['write_approval', 'plan_approval', 'clarification', 'tool_confirmation'],
  added: { R3: ['batch_approval'] },
} as const satisfies Versioned<string>

// completion: seven notification kinds of the product before twins.
const NOTIFICATION = {
  base: ['decision_needed', 'record_decided', 'signature_requested', 'connection_degraded', 'sync_failed', 'member_added', 'run_finished'],
  added: { R3: ['handoff_received', 'digest', 'twin_paused', 'mention', 'decision_reminder'], R4: ['stage_ready'] },
} as const satisfies Versioned<string>

// completion: ten artifact kinds before twins. skill_result is counted in the base ten (see docs/console-developers.md: the skills
// material's "12 after skill_result" and this schedule's "12 after readiness_brief" cannot both add a kind).
const ARTIFACT = {
  base: ['draft', 'summary', 'table', 'figure', 'report', 'extract', 'search_results', 'plan_outline', 'check_result', 'skill_result'],
  added: { R3: ['persona_brief'], R4: ['readiness_brief'] },
} as const satisfies Versioned<string>

// completion: what a signature or an approval may target before stage gates.
const SIGNATURE_TARGET = {
  base: ['plan', 'sop_version', 'report'],
  added: { R4: ['stage_gate'] },
} as const satisfies Versioned<string>
const APPROVAL_TARGET = {
  base: ['plan', 'sop_version', 'report', 'hypothesis', 'open_item'],
  added: { R4: ['stage_gate'] },
} as const satisfies Versioned<string>

export type AgentRunKind = (typeof AGENT_RUN.base)[number] | (typeof AGENT_RUN.added)[keyof typeof AGENT_RUN.added][number]
export type InterruptKind = (typeof INTERRUPT.base)[number] | (typeof INTERRUPT.added.R3)[number]
export type ArtifactKind = (typeof ARTIFACT.base)[number] | (typeof ARTIFACT.added)[keyof typeof ARTIFACT.added][number]
export type SignatureTargetType = (typeof SIGNATURE_TARGET.base)[number] | 'stage_gate'
export type ApprovalTargetType = (typeof APPROVAL_TARGET.base)[number] | 'stage_gate'

export const agentRunKinds = (r: Release): readonly AgentRunKind[] => at<AgentRunKind>(AGENT_RUN, r)
export const interruptKinds = (r: Release): readonly InterruptKind[] => at<InterruptKind>(INTERRUPT, r)
export const notificationKinds = (r: Release): readonly string[] => at<string>(NOTIFICATION, r)
export const artifactKinds = (r: Release): readonly ArtifactKind[] => at<ArtifactKind>(ARTIFACT, r)
export const signatureTargetTypes = (r: Release): readonly SignatureTargetType[] => at<SignatureTargetType>(SIGNATURE_TARGET, r)
export const approvalTargetTypes = (r: Release): readonly ApprovalTargetType[] => at<ApprovalTargetType>(APPROVAL_TARGET, r)

export const TONES = ['pass', 'review', 'fail', 'info', 'neutral'] as const
export type Tone = (typeof TONES)[number]

// The tone of each status word. completion: the 56 base entries (11 pass, 15 review, 7 fail, 4 info, 19 neutral), so
// that R3's additions give the document's 12/16/7/4/22.
const TONE_MAP = {
  base: {
    pass: ['active', 'succeeded', 'ok', 'approved', 'verified', 'connected', 'kept', 'promoted', 'available', 'accepted', 'met'],
    review: [
      'proposed', 'pending', 'queued', 'running', 'interrupted', 'draft', 'in_review', 'promotion_requested', 'open',
      'ready', 'preview', 'to_verify', 'degraded', 'held', 'awaiting_signature',
    ],
    fail: ['failed', 'refused', 'rejected', 'declined', 'not_met', 'stale', 'blocked'],
    info: ['designed', 'enqueued', 'syncing', 'scheduled'],
    neutral: [
      'paused', 'retired', 'withdrawn', 'cancelled', 'dismissed', 'expired', 'forgotten', 'closed', 'archived',
      'superseded', 'ignored', 'not_connected', 'none', 'inactive', 'deleted', 'disabled', 'reserved', 'not_applicable', 'unknown',
    ],
  },
  added: {
    R3: { pass: ['enabled'], review: ['sent'], neutral: ['done', 'snoozed', 'revoked'] },
    R4: { pass: ['reviewed'] },
  },
} as const satisfies { base: Record<Tone, readonly string[]>; added: Partial<Record<Release, Partial<Record<Tone, readonly string[]>>>> }

export interface ToneEntry { status: string; tone: Tone }

/** The tone map of a release, in declaration order (base, then each release's additions). */
export function toneMap(release: Release): ToneEntry[] {
  const sets: Partial<Record<Tone, readonly string[]>>[] = [TONE_MAP.base, ...RELEASES.slice(0, RELEASES.indexOf(release) + 1).map((r) => (TONE_MAP.added as Partial<Record<Release, Partial<Record<Tone, readonly string[]>>>>)[r] ?? {})]
  return sets.flatMap((set) => TONES.flatMap((tone) => (set[tone] ?? []).map((status) => ({ status, tone }))))
}

/** Every kind set of a release, as the API exposes it. */
export function kindsAt(release: Release) {
  return {
    release,
    agentRunKinds: agentRunKinds(release),
    interruptKinds: interruptKinds(release),
    notificationKinds: notificationKinds(release),
    artifactKinds: artifactKinds(release),
    signatureTargetTypes: signatureTargetTypes(release),
    approvalTargetTypes: approvalTargetTypes(release),
  }
}

/** At most this many items in one batch_approval interrupt, chosen explicitly (twins document, Limits). */
export const MAX_BATCH_APPROVAL_ITEMS = 10
