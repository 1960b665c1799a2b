// Owns what makes a skill result stage-gate evidence (issue 29, item 16). Before, any skill_result artifact of the
// skill counted, so a run with made-up inputs and a citation reading "x" satisfied a gate's FIH projection. Decision:
// a skill result is evidence for a gate when
//   1. a person ran it (POST skill-runs / runSkill): a twin's run through the tool server is its draft, and counts
//      only once its person runs the skill themselves ("Your twin proposes. You decide.");
//   2. it cites, and everything it cites is a record of its program (skills/citation-refs.ts): a mirrored document
//      version or one of its tables, an attachment, a notebook entry, an SOP version, a program record, or a literature
//      cluster the organisation's searches found. One citation that names nothing of the program ('x',
//      'tox-report:rat#noael') keeps the whole result out: its numbers rest on it.
// Inputs cannot be checked beyond what they cite; a cited table read through documents.read_table_rows is (the NCA
// skill's table input re-reads the rows from the cited version). Set-based per program: one read of the candidate
// results and one read per cited kind, whatever the number of gates.
import { asTx, type AnyTx } from '../../core/database'
import { skillResultRows } from './sql'
import { parseProgramCitation, type ProgramCitation, type ProgramCitationKind } from '../skills'

export const GATE_EVIDENCE_RULE = 'a skill result counts when a person ran it and everything it cites is a record of this program'

export interface SkillResultEvidence {
  id: string
  skillKey: string
  evidence: boolean
  /** Why it does not count, in words; null when it does. */
  reason: string | null
}

const key = (c: ProgramCitation) => `${c.kind}:${c.kind === 'literature' ? c.id.toLowerCase() : c.id}`

/** The program's skill results of these skills, newest first, each with whether it is gate evidence and why not. */
export async function skillResultEvidence(anyTx: AnyTx, organizationId: string, programId: string, skills: readonly string[]): Promise<SkillResultEvidence[]> {
  const tx = asTx(anyTx)
  const rows = await skillResultRows(tx, organizationId, programId, skills)
  const parsed = new Map<string, ProgramCitation | null>()
  for (const r of rows) for (const ref of r.refs) if (!parsed.has(ref)) parsed.set(ref, parseProgramCitation(ref))
  const resolved = await resolveCitations(tx, organizationId, programId, [...parsed.values()].filter((c): c is ProgramCitation => c !== null))
  return rows.map((r) => {
    const foreign = r.refs.find((ref) => { const c = parsed.get(ref); return !c || !resolved.has(key(c)) })
    const reason = !r.created_by_user_id || r.by_twin ? 'run by a twin (it counts once a person runs the skill)'
      : r.refs.length === 0 ? 'cites nothing'
        : foreign !== undefined ? `cites '${foreign.slice(0, 80)}', which is no record of this program`
          : null
    return { id: r.id, skillKey: r.skill_key, evidence: reason === null, reason }
  })
}

const TABLE: Record<Exclude<ProgramCitationKind, 'literature'>, 'document' | 'attachment' | 'source' | 'sopVersion' | 'programRecord'> = {
  document: 'document', attachment: 'attachment', eln_entry: 'source', sop_version: 'sopVersion', record: 'programRecord',
}

/** The citations that name something of the program (their `kind:id` keys). */
async function resolveCitations(tx: ReturnType<typeof asTx>, organizationId: string, programId: string, cites: ProgramCitation[]): Promise<Set<string>> {
  const out = new Set<string>()
  const ids = (kind: ProgramCitationKind) => [...new Set(cites.filter((c) => c.kind === kind).map((c) => c.id))]
  const scope = { organizationId, programId }
  await Promise.all((Object.keys(TABLE) as (keyof typeof TABLE)[]).map(async (kind) => {
    const want = ids(kind)
    if (!want.length) return
    const where = { id: { in: want }, ...scope, ...(kind === 'eln_entry' ? { sourceType: 'eln_entry' } : {}) }
    const model = tx[TABLE[kind]] as unknown as { findMany(args: object): Promise<{ id: string }[]> }
    for (const row of await model.findMany({ where, select: { id: true } })) out.add(`${kind}:${row.id}`)
  }))
  const keys = ids('literature')
  if (keys.length) {
    const lowered = keys.map((k) => k.toLowerCase())
    const clusters = await tx.literatureCluster.findMany({ where: { organizationId, OR: [{ clusterKey: { in: keys } }, { clusterKey: { in: lowered } }, { aliases: { hasSome: keys } }] }, select: { clusterKey: true, aliases: true } })
    for (const c of clusters) for (const k of [c.clusterKey, ...c.aliases]) out.add(`literature:${k.toLowerCase()}`)
  }
  return out
}

/** The missing line of a skill_result requirement: none in the program, or why none of them counts. */
export function notEvidenceLine(results: readonly SkillResultEvidence[]): string {
  if (!results.length) return 'no skill result in this program'
  const newest = results[0]
  return `${results.length} skill result${results.length === 1 ? '' : 's'} not counted (${GATE_EVIDENCE_RULE}); the newest is ${newest.reason}`
}
