// Owns the duty templates: server-side procedures that read through tools and file proposals, run by the
// deterministic harness over MCP. Persona templates (blocker_scan, pre_read, the four QA templates) run whether or not
// the person wears a workbench role; sar_refresh and study_gate_check belong to their workbench roles (R4).
// A template never decides: it files proposals, and a refusal of one step (harness_denied, invalid_input) is counted
// and the template goes on with the next.
import { createHash } from 'node:crypto'
import type { ToolClient } from './tool-client'
import { filingPaused, isFilingPaused } from '../../../domain/inbox'
import { dutyTemplate } from '../../../domain/twins'
import type { ProgramPersona } from '../../../core/permissions'

type Rec = { id: string; title: string; status: string; version: number; fields: Record<string, any>; body: string }

/** What a template reports; the harness sums these into the run's outcome (counts and ids only). */
export interface DutyReport {
  proposals_filed: number; duplicates: number; denied: number; refused: number; skills_run: number; skipped: number; proposal_ids: string[]
  /** Proposals not filed because one of the same kind on the same basis is still waiting for the person (their ids). */
  already_waiting: number; already_waiting_ids: string[]
}

/** One template's pass over one run: reading, running skills and filing through the run's tool client. */
export class DutyRun {
  readonly report: DutyReport = { proposals_filed: 0, duplicates: 0, denied: 0, refused: 0, skills_run: 0, skipped: 0, proposal_ids: [], already_waiting: 0, already_waiting_ids: [] }
  /** The run's memory brief from memory.recall (data, never instructions); null when the run has none. */
  memoryBrief: string | null = null
  /** What the run was started about (agent_runs.target_id): the accepted hand-off of a twin_handoff run; else null. */
  target: string | null = null
  constructor(
    readonly client: ToolClient,
    readonly duty: string,
    /** Decisions waiting when the run began (console.get_twin) plus what this run filed: backpressure's N. */
    readonly backpressure: { openDecisions: number; line: string | null },
    readonly today: string,
  ) {}

  private refused(code: string) { if (code === 'harness_denied') this.report.denied++; else this.report.refused++ }

  /** Records of a type through its list tool; [] when the tool is denied (not in this run's toolset). */
  async records(tool: string, args: Record<string, unknown> = {}): Promise<Rec[]> {
    const r = await this.client.call<{ records: Rec[] }>(tool, args, { duty: this.duty })
    if (!r.ok) { this.refused(r.error.code); return [] }
    return r.value.records
  }

  /** A skill run (a new turn every max_skill_runs_per_turn runs is the harness's job); null when refused. */
  async skill(tool: string, inputs: Record<string, unknown>): Promise<Record<string, any> | null> {
    const r = await this.client.call(tool, { inputs }, { duty: this.duty })
    if (!r.ok) { this.refused(r.error.code); return null }
    this.report.skills_run++
    return r.value
  }

  /** Files one proposal unless filing is paused (backpressure); answers the proposal id or null. */
  async propose(tool: string, args: { change: Record<string, unknown>; basisRecordIds: string[]; draft: string }): Promise<string | null> {
    if (isFilingPaused(this.backpressure.openDecisions)) {
      this.backpressure.line = filingPaused(this.backpressure.openDecisions)
      this.report.skipped++
      return null
    }
    if (!this.client.has(tool)) { this.report.denied++; return null }
    const r = await this.client.call<{ proposalId?: string; duplicate?: boolean; alreadyWaiting?: boolean }>(tool, args, { duty: this.duty })
    if (!r.ok) { this.refused(r.error.code); return null }
    if (r.value.duplicate) { this.report.duplicates++; return null }
    if (r.value.alreadyWaiting) {
      this.report.already_waiting++
      if (r.value.proposalId && !this.report.already_waiting_ids.includes(r.value.proposalId)) this.report.already_waiting_ids.push(r.value.proposalId)
      return null
    }
    this.report.proposals_filed++
    this.backpressure.openDecisions++
    if (r.value.proposalId) this.report.proposal_ids.push(r.value.proposalId)
    return r.value.proposalId ?? null
  }
}

export interface DutyTemplate {
  key: string
  kind: 'persona' | 'workbench_role'
  /** QA templates: the personas that may hold them, from the twins' duty catalogue (duty_unavailable otherwise). */
  personas?: readonly ProgramPersona[]
  /** The workbench role that ships it (role templates only). */
  workbenchRole?: string
  /** Tools it reads through, and what it files (propose tools) or runs (skills). */
  reads: readonly string[]
  files: readonly string[]
  description: string
  run(d: DutyRun): Promise<void>
}

/** A QA template's key, personas and description as the twins' duty catalogue lists them (one list for both). */
function catalogued(key: string): Pick<DutyTemplate, 'key' | 'personas' | 'description'> {
  const t = dutyTemplate(key)!
  return { key, personas: t.personas, description: t.description }
}
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
const titled = (records: Rec[], title: string) => records.some((r) => r.title.trim().toLowerCase() === title.trim().toLowerCase())
const bullet = (records: Rec[]) => records.map((r) => `- ${r.title} (${r.status})`).join('\n') || '- none'
/** A record cited in a draft: the program citation grammar's record:<id> as a citation-key marker ([@record:<id>]). */
const cite = (r: Pick<Rec, 'id'>) => `[@record:${r.id}]`
/** A record as a draft names it: its title, status and version, cited. */
const named = (r: Rec) => `'${r.title}' (${r.status.replace(/_/g, ' ')}, version ${r.version}) ${cite(r)}`
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000)
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

const blockerScan: DutyTemplate = {
  key: 'blocker_scan', kind: 'persona',
  reads: ['progress.list_milestones', 'progress.list_dependencies', 'evidence.list_gaps', 'progress.list_open_items', 'evidence.list_questions'],
  files: ['progress.propose_open_item', 'evidence.propose_question'],
  description: 'Milestones past due, broken dependencies and open high-severity gaps without an open item: proposes an open item (managers) or a question (others).',
  async run(d) {
    const milestones = await d.records('progress.list_milestones')
    const dependencies = await d.records('progress.list_dependencies', { status: 'broken' })
    const gaps = (await d.records('evidence.list_gaps', { status: 'open' })).filter((g) => g.fields.severity === 'high')
    const openItems = await d.records('progress.list_open_items', { status: 'open' })
    const questions = await d.records('evidence.list_questions', { status: 'open' })
    // What the draft says was read, and why this record blocks (the person decides on these, not on the title).
    const read = `Read ${plural(milestones.length, 'milestone')}, ${plural(dependencies.length, 'broken dependency', 'broken dependencies')}, ${plural(gaps.length, 'open high-severity gap')}, ${plural(openItems.length, 'open item')} and ${plural(questions.length, 'open question')} of the program.`
    const blocked = [
      ...milestones.filter((m) => ['planned', 'at_risk'].includes(m.status) && typeof m.fields.due_on === 'string' && m.fields.due_on < d.today)
        .map((m) => {
          const late = daysBetween(m.fields.due_on, d.today)
          return { record: m, why: `is past due (${m.fields.due_on})`, because: `The milestone ${named(m)} was due on ${m.fields.due_on}: ${plural(late, 'day')} overdue, and it is still ${m.status.replace(/_/g, ' ')}.` }
        }),
      ...dependencies.map((x) => ({ record: x, why: 'is broken', because: `The dependency ${named(x)} is recorded as broken${x.fields.blocks ? `; it blocks ${x.fields.blocks}` : ''}.` })),
      ...gaps.map((g) => ({
        record: g, why: 'is open (high severity)',
        because: `The evidence gap ${named(g)} is open with high severity${g.fields.area ? ` in ${g.fields.area}` : ''}${g.fields.blocks ? `, and it blocks ${g.fields.blocks}` : ''}.`,
      })),
    ]
    for (const { record, why, because } of blocked) {
      const owner = d.client.has('progress.propose_open_item')
        ? `No open item names it, so nothing records who clears it. Proposed: a high-priority open item due ${addDays(d.today, 7)}, so someone owns it.`
        : `No open question names it. Proposed: a question due ${addDays(d.today, 7)} asking what unblocks it.`
      const draft = `${read}\n\n${because} ${owner}`
      if (d.client.has('progress.propose_open_item')) {
        const title = `Blocker: ${record.title} ${why}`
        if (titled(openItems, title)) continue
        await d.propose('progress.propose_open_item', {
          change: { kind: 'create', title, fields: { priority: 'high', due_on: addDays(d.today, 7) } }, basisRecordIds: [record.id], draft,
        })
      } else {
        const title = `What unblocks ${record.title}?`
        if (titled(questions, title)) continue
        await d.propose('evidence.propose_question', { change: { kind: 'create', title, fields: { due_on: addDays(d.today, 7) } }, basisRecordIds: [record.id], draft })
      }
    }
  },
}

const preRead: DutyTemplate = {
  key: 'pre_read', kind: 'persona',
  reads: ['progress.list_milestones', 'evidence.list_gaps', 'evidence.list_questions', 'progress.list_open_items', 'plans.list_reports'],
  files: ['plans.propose_report'],
  description: 'For each milestone due within 7 days: a pre-read summary (open gaps, questions and items) as a report proposal.',
  async run(d) {
    const soon = (await d.records('progress.list_milestones')).filter((m) => ['planned', 'at_risk'].includes(m.status)
      && typeof m.fields.due_on === 'string' && m.fields.due_on >= d.today && m.fields.due_on <= addDays(d.today, 7))
    if (!soon.length) return
    const [gaps, questions, items, reports] = [
      await d.records('evidence.list_gaps', { status: 'open' }), await d.records('evidence.list_questions', { status: 'open' }),
      await d.records('progress.list_open_items', { status: 'open' }), await d.records('plans.list_reports'),
    ]
    for (const m of soon) {
      const title = `Pre-read: ${m.title} (due ${m.fields.due_on})`
      if (titled(reports, title)) continue
      const body = `Open gaps\n${bullet(gaps)}\n\nOpen questions\n${bullet(questions)}\n\nOpen items\n${bullet(items)}`
      await d.propose('plans.propose_report', {
        change: { kind: 'create', title, body, fields: { report_kind: 'summary' } },
        basisRecordIds: [m.id, ...gaps.map((r) => r.id), ...questions.map((r) => r.id), ...items.map((r) => r.id)].slice(0, 100),
        draft: `The milestone ${named(m)} is due on ${m.fields.due_on}, ${plural(daysBetween(d.today, m.fields.due_on), 'day')} from today. `
          + `Read the program's open gaps, questions and items to list what is still open before it: ${plural(gaps.length, 'gap')}, ${plural(questions.length, 'question')}, ${plural(items.length, 'open item')}`
          + `${[...gaps, ...questions, ...items].length ? ` (${[...gaps, ...questions, ...items].slice(0, 20).map(cite).join(', ')})` : ''}.`,
      })
    }
  },
}

/** QA 1: open major or critical review findings without a deviation record: propose the deviation. */
const qaCheckTriage: DutyTemplate = {
  ...catalogued('qa_check_triage'), kind: 'persona',
  reads: ['review.list_findings', 'review.list_deviations'], files: ['review.propose_deviation'],
  async run(d) {
    const findings = (await d.records('review.list_findings', { status: 'open' })).filter((f) => ['major', 'critical'].includes(f.fields.severity))
    const deviations = await d.records('review.list_deviations')
    for (const f of findings) {
      const title = `Deviation: ${f.title}`
      if (titled(deviations, title)) continue
      await d.propose('review.propose_deviation', {
        change: { kind: 'create', title, fields: { classification: f.fields.severity, capa_required: f.fields.severity === 'critical' } },
        basisRecordIds: [f.id], draft: `Read the open review findings and the deviation records. The ${f.fields.severity} finding ${named(f)} has no deviation record, and a ${f.fields.severity} finding needs one${f.fields.severity === 'critical' ? ' with a CAPA' : ''}.`,
      })
    }
  },
}

/** QA 2: major or critical deviations still open with no CAPA decision: propose capa_required. */
const qaDeviationFollowup: DutyTemplate = {
  ...catalogued('qa_deviation_followup'), kind: 'persona',
  reads: ['review.list_deviations'], files: ['review.propose_deviation'],
  async run(d) {
    for (const status of ['reported', 'investigating']) {
      for (const dev of await d.records('review.list_deviations', { status })) {
        if (!['major', 'critical'].includes(dev.fields.classification) || dev.fields.capa_required === true) continue
        await d.propose('review.propose_deviation', {
          change: { kind: 'update', recordId: dev.id, fields: { capa_required: true } }, basisRecordIds: [dev.id],
          draft: `Read the deviations still reported or under investigation. ${named(dev)} is classified ${dev.fields.classification} and no CAPA decision is recorded on it.`,
        })
      }
    }
  },
}

/** QA 3: OOS/OOT candidate findings handed to QA: propose a review finding for each not yet taken in. */
const qaOosIntake: DutyTemplate = {
  ...catalogued('qa_oos_intake'), kind: 'persona',
  reads: ['evidence.list_findings', 'review.list_findings'], files: ['review.propose_finding'],
  async run(d) {
    const candidates = (await d.records('evidence.list_findings')).filter((f) => f.fields.kind === 'oos_candidate' && f.status !== 'retracted')
    if (!candidates.length) return
    const reviewed = await d.records('review.list_findings')
    for (const f of candidates) {
      const title = `OOS candidate: ${f.title}`
      if (titled(reviewed, title)) continue
      await d.propose('review.propose_finding', {
        change: { kind: 'create', title, fields: { severity: 'major', check: 'OOS/OOT candidate intake' } }, basisRecordIds: [f.id],
        draft: `Read the evidence findings and the review findings. ${named(f)} was recorded as an OOS candidate, and no review finding takes it in yet.`,
      })
    }
  },
}

/**
 * QA 4: interpretations linted with evidence.assertion_lint; uncited interpretations become a minor review finding.
 * The lint exercises evidence.agents.use, which owners and leads hold and a quality reviewer does not: a quality
 * reviewer's run is denied the lint (counted) and files nothing for this template.
 */
const qaAssertionAudit: DutyTemplate = {
  ...catalogued('qa_assertion_audit'), kind: 'persona',
  reads: ['evidence.list_findings', 'review.list_findings'], files: ['evidence.assertion_lint', 'review.propose_finding'],
  async run(d) {
    const interpretations = (await d.records('evidence.list_findings')).filter((f) => f.fields.kind === 'interpretation' && f.status !== 'retracted')
    if (!interpretations.length) return
    const reviewed = await d.records('review.list_findings')
    let inTurn = 0
    for (const f of interpretations) {
      const title = `Uncited interpretation: ${f.title}`
      if (titled(reviewed, title)) continue
      if (inTurn === 4) { d.client.nextTurn(); inTurn = 0 } // max_skill_runs_per_turn
      inTurn++
      const lint = await d.skill('evidence.assertion_lint', { text: [f.fields.summary, f.body].filter(Boolean).join('\n\n') || f.title, context: 'review.propose_finding' })
      const uncited = Number(lint?.outputs?.uncited_interpretations?.value ?? 0)
      if (!lint || uncited === 0) continue
      await d.propose('review.propose_finding', {
        change: { kind: 'create', title, fields: { severity: 'minor', check: 'assertion lint (assertion_model)' } }, basisRecordIds: [f.id],
        draft: `Ran the assertion check on the interpretation ${named(f)}: ${plural(uncited, 'interpretation')} in it ${uncited === 1 ? 'cites' : 'cite'} no source.`,
      })
    }
  },
}

/** A compound line in a result finding's body: 'compound: BZ-1; smiles: ...; target: KDR; IC50: 10 nM; source: ...; licence: ...'. */
export function compoundLines(finding: Rec) {
  const out: { id: string; smiles: string; target: string; endpoint: string; nM: number; source: string; licence: string; findingId: string }[] = []
  for (const line of finding.body.split('\n')) {
    if (!/^\s*compound\s*:/i.test(line)) continue
    const kv = Object.fromEntries(line.split(';').map((p) => p.split(':')).filter((p) => p.length >= 2).map(([k, ...v]) => [k.trim().toLowerCase(), v.join(':').trim()]))
    const endpoint = ['ic50', 'ki', 'kd', 'ec50'].find((e) => kv[e])
    const nM = endpoint ? Number(/^([\d.]+)\s*nM$/i.exec(kv[endpoint])?.[1]) : NaN
    if (!kv.compound || !kv.smiles || !kv.target || !endpoint || !Number.isFinite(nM)) continue
    out.push({ id: kv.compound, smiles: kv.smiles, target: kv.target, endpoint: endpoint.toUpperCase().replace('IC50', 'IC50'), nM, source: kv.source || 'program record', licence: kv.licence || 'internal', findingId: finding.id })
  }
  return out
}

/** Medicinal chemist: the SAR table rebuilt when the compound set changed (a refresh waiting for the same set is skipped). */
const sarRefresh: DutyTemplate = {
  key: 'sar_refresh', kind: 'workbench_role', workbenchRole: 'medicinal_chemist',
  reads: ['evidence.list_findings', 'console.list_decisions_waiting'], files: ['chem.sar_table_build', 'evidence.propose_finding'],
  description: 'Compound lines of result findings: runs chem.sar_table_build on the set and proposes an interpretation finding with the table.',
  async run(d) {
    const findings = (await d.records('evidence.list_findings')).filter((f) => f.fields.kind === 'result' && f.status !== 'retracted')
    const lines = findings.flatMap(compoundLines)
    const ids = [...new Set(lines.map((l) => l.id))].sort()
    if (ids.length < 2) return
    const setHash = createHash('sha256').update(ids.join('\n')).digest('hex').slice(0, 8)
    const title = `SAR table refresh: ${ids.length} compounds (${setHash})`
    const waiting = await d.client.call<{ items: { title: string }[] }>('console.list_decisions_waiting', { first: 100 }, { duty: d.duty })
    if (waiting.ok && waiting.value.items.some((i) => i.title === title)) return
    const compounds = ids.map((id) => { const l = lines.find((x) => x.id === id)!; return { id, smiles: l.smiles, source: l.source, licence: l.licence } })
    const activities = lines.map((l) => ({
      compound_id: l.id, target: l.target, endpoint: l.endpoint === 'KI' ? 'Ki' : l.endpoint === 'KD' ? 'Kd' : l.endpoint, value: { value: l.nM, unit: 'nmol/L' },
      source: l.source, licence: l.licence, citation: `record:${l.findingId}`,
    }))
    const table = await d.skill('chem.sar_table_build', { compounds, activities })
    if (!table) return
    await d.propose('evidence.propose_finding', {
      change: { kind: 'create', title, body: `SAR comparison table of ${ids.length} compounds: skill result ${table.artifact_id} (chem.sar_table_build, check logic version ${table.check_logic_version}, inputs ${String(table.inputs_hash).slice(0, 12)}).`, fields: { kind: 'interpretation', summary: `SAR table over ${ids.join(', ')}` } },
      basisRecordIds: [...new Set(lines.map((l) => l.findingId))], draft: `New compounds since the last table: the set is now ${ids.join(', ')}.`,
    })
  },
}

/** DMPK and toxicology scientist: each study protocol needs a NOAEL finding in its species before the study gate. */
const studyGateCheck: DutyTemplate = {
  key: 'study_gate_check', kind: 'workbench_role', workbenchRole: 'dmpk_tox_scientist',
  reads: ['plans.list_protocols', 'evidence.list_findings', 'evidence.list_gaps'], files: ['tox.fih_dose_projection', 'evidence.propose_gap', 'evidence.propose_finding'],
  description: 'Study protocols without a NOAEL finding in their species: proposes a gap; with one: runs tox.fih_dose_projection and proposes the projection as an interpretation.',
  async run(d) {
    const protocols = (await d.records('plans.list_protocols')).filter((p) => p.fields.protocol_kind === 'study' && ['draft', 'final'].includes(p.status) && p.fields.species)
    if (!protocols.length) return
    const findings = (await d.records('evidence.list_findings')).filter((f) => f.status !== 'retracted')
    const gaps = await d.records('evidence.list_gaps')
    for (const p of protocols) {
      const species = String(p.fields.species).toLowerCase()
      const noael = findings.find((f) => String(f.fields.species ?? '').toLowerCase() === species && typeof f.fields.dose_mg_per_kg === 'number')
      if (!noael) {
        const title = `Study gate: no NOAEL finding for ${species} (${p.title})`
        if (titled(gaps, title)) continue
        await d.propose('evidence.propose_gap', {
          change: { kind: 'create', title, fields: { severity: 'high', area: 'nonclinical safety', blocks: p.title.slice(0, 500) } }, basisRecordIds: [p.id],
          draft: `Read the study protocols and the evidence findings. The study protocol ${named(p)} is in ${species}, and no finding records a NOAEL in ${species}.`,
        })
        continue
      }
      const title = `FIH projection from the ${species} NOAEL (${p.title})`
      if (titled(findings, title)) continue
      const projection = await d.skill('tox.fih_dose_projection', { route: 'oral', noael: [{ species, dose: { value: noael.fields.dose_mg_per_kg, unit: 'mg/kg' }, citation: `record:${noael.id}` }] })
      if (!projection) continue
      const mrsd = projection.outputs?.mrsd
      await d.propose('evidence.propose_finding', {
        change: { kind: 'create', title, body: `Projection for your decision, not a starting dose. MRSD ${mrsd?.value ?? '?'} ${mrsd?.unit_display ?? mrsd?.unit_ucum ?? ''} (skill result ${projection.artifact_id}).`, fields: { kind: 'interpretation', species } },
        basisRecordIds: [p.id, noael.id], draft: `Read the study protocol ${named(p)} and the ${species} NOAEL finding ${named(noael)} (${noael.fields.dose_mg_per_kg} mg/kg), and ran the first-in-human dose projection on it.`,
      })
    }
  },
}

/**
 * twin_literature_watch (the seeded capability console.twin_literature_watch): searches the open literature for the
 * program's open hypotheses and questions, within the turn's query budget, and proposes one observation finding per
 * topic citing the clusters found (citation kind literature_cluster). A refused search (turn budget, RateLimited) is
 * counted and the watch goes on with what it has.
 */
const literatureWatch: DutyTemplate = {
  key: 'twin_literature_watch', kind: 'persona',
  reads: ['evidence.list_hypotheses', 'evidence.list_questions', 'evidence.search_literature', 'evidence.list_findings'],
  files: ['evidence.propose_finding'],
  description: 'Literature watch: searches the open literature for open hypotheses and questions and proposes a finding citing what it found.',
  async run(d) {
    const topics = [...(await d.records('evidence.list_hypotheses')), ...(await d.records('evidence.list_questions', { status: 'open' }))]
    const findings = await d.records('evidence.list_findings')
    for (const topic of topics) {
      const query = topic.title.replace(/\(illustrative\)/gi, '').replace(/[^\p{L}\p{N}\s-]/gu, ' ').split(/\s+/).filter((w) => w.length > 3).slice(0, 4).join(' ')
      if (!query) continue
      const r = await d.client.call<{ clusters: { clusterKey: string; title: string | null; licence: string }[] }>('evidence.search_literature', { query, first: 5 }, { duty: d.duty })
      if (!r.ok) {
        if (r.error.code === 'harness_denied') d.report.denied++
        else d.report.refused++
        if (r.error.code === 'evidence_query_budget_exhausted') break
        continue
      }
      if (!r.value.clusters.length) continue
      const title = `Literature watch: ${topic.title.slice(0, 250)}`
      if (titled(findings, title)) continue
      await d.propose('evidence.propose_finding', {
        change: {
          kind: 'create', title, fields: { kind: 'observation' },
          body: r.value.clusters.map((c) => `- ${c.title ?? c.clusterKey} (${c.clusterKey}; licence ${c.licence})`).join('\n'),
          citations: r.value.clusters.map((c) => ({ kind: 'literature_cluster', ref: c.clusterKey })),
        },
        basisRecordIds: [topic.id],
        draft: `Searched the open literature for '${query}' (${r.value.clusters.length} works). Outside text; the licences decide what may be shown.`,
      })
    }
  },
}

type HandoffRow = { id: string; kind: string; status: string; toPersonaKey: string; linkedType: string; linkedId: string; createdAt: string; decidedAt: string | null }

/**
 * twin_handoff (the seeded capability console.twin_handoff): the run an accepted hand-off starts for the recipient's
 * twin. It reads the hand-off through console.list_handoffs (ids, kind, persona, link; never the message) and looks
 * for the linked record among the plans reads of its toolset (a hand-off run carries console and plans only), then
 * proposes a pre-read report for its person citing what it read (the hand-off id, the record as basis). A linked record
 * outside the toolset is named by id and never read: the template calls no tool the run does not list, so nothing is
 * denied and nothing is read that the person may not read (every call is checked against live permissions anyway).
 */
const handoffPreRead: DutyTemplate = {
  key: 'twin_handoff', kind: 'persona',
  reads: ['console.list_handoffs', 'plans.list_experiments', 'plans.list_plans', 'plans.list_protocols', 'plans.list_reports'],
  files: ['plans.propose_report'],
  description: 'Hand-off pre-read: reads the accepted hand-off and the linked record it may read, and proposes a pre-read report citing them.',
  async run(d) {
    if (!d.target || !d.client.has('console.list_handoffs')) return
    const listed = await d.client.call<{ handoffs: HandoffRow[] }>('console.list_handoffs', { status: 'accepted', first: 100 }, { duty: d.duty })
    if (!listed.ok) { if (listed.error.code === 'harness_denied') d.report.denied++; else d.report.refused++; return }
    const h = listed.value.handoffs.find((x) => x.id === d.target)
    if (!h) { d.report.skipped++; return } // no longer accepted (completed or withdrawn since): nothing to prepare
    // The linked record, if a plans read of this run lists it (reads the run does not carry are never attempted).
    let linked: (Rec & { recordType: string }) | null = null
    const reports = d.client.has('plans.list_reports') ? await d.records('plans.list_reports') : []
    if (h.linkedType === 'program_record') {
      for (const tool of [...d.client.tools].filter((t) => t.startsWith('plans.list_')).sort()) {
        const records = tool === 'plans.list_reports' ? reports : await d.records(tool, { first: 100 })
        const hit = records.find((r) => r.id === h.linkedId)
        if (hit) { linked = { ...hit, recordType: `plans.${tool.slice('plans.list_'.length)}` }; break }
      }
    }
    const title = `Hand-off pre-read: ${h.kind} of ${linked ? linked.title : `${h.linkedType} ${h.linkedId}`}`.slice(0, 300)
    if (titled(reports, title)) return
    const read = linked
      ? `Linked record: ${linked.title} (${linked.recordType}, ${linked.status}, version ${linked.version}; record ${linked.id}).\n\n${linked.body ? `${linked.body}\n` : ''}`
      : `Linked ${h.linkedType} ${h.linkedId}: not readable in a hand-off run (its toolset reads plans records only); open it from the hand-off.\n`
    await d.propose('plans.propose_report', {
      change: {
        kind: 'create', title, fields: { report_kind: 'summary' },
        body: `Hand-off ${h.id} (${h.kind}, to ${h.toPersonaKey}), accepted ${h.decidedAt ?? ''}.\n\n${read}\nRead: console.list_handoffs${linked ? `, plans.list_${linked.recordType.slice('plans.'.length)}` : ''}. Agent-generated pre-read; you decide what to do with the hand-off.`,
      },
      basisRecordIds: linked ? [linked.id] : [],
      draft: `You accepted a ${h.kind} hand-off (${h.id}). What it links${linked ? `: '${linked.title}' (${linked.status})` : ' is not readable in this run'}.`,
    })
  },
}

/** Every duty template by key. */
export const DUTY_TEMPLATES: Readonly<Record<string, DutyTemplate>> = Object.freeze(Object.fromEntries(
  [blockerScan, preRead, qaCheckTriage, qaDeviationFollowup, qaOosIntake, qaAssertionAudit, sarRefresh, studyGateCheck, literatureWatch, handoffPreRead].map((t) => [t.key, t]),
))

/** The four QA templates (persona templates of the quality reviewer). */
export const QA_TEMPLATES = ['qa_check_triage', 'qa_deviation_followup', 'qa_oos_intake', 'qa_assertion_audit'] as const

/** May a persona hold a duty? (What the twins' duty_unavailable refusal reads, from one catalogue.) */
export const dutyAvailableTo = (duty: string, persona: string) => !!DUTY_TEMPLATES[duty] && !!dutyTemplate(duty)?.personas.includes(persona as ProgramPersona)
