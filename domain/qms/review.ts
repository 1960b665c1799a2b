// Owns the review side of SOPs (memory document: review.sops; connector document: QMS/SOP rule 5): configuring a QMS
// connection, local SOPs and their approval (connector SOPs answer sop_external: the QMS is authoritative), requirement
// sets extracted from a version's text and accepted (the binding decision: signed with the meaning approval, audited),
// checks binding a notebook entry (a source of type eln_entry) to the effective SOP version of a document type, their
// rows met or not met, and the skill input qa.check_readiness reads from them.
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { personText } from '../../core/text'
import { command, onId, type DomainContext, type Write } from '../../core/jobs'
import { ConnectionDisconnected, FreshSignInRequired, InvalidInput, InvalidTransition, NotFoundError, SopExternal, UnsupportedApiVersion } from '../../core/errors'
import { IdInput } from '../../core/text'
import { sanitiseOutsideText } from '../../core/text'
import { assertCan } from '../../core/identity'
import { transition, transitionAll } from '../../core/states'
import { requirementSetStatus } from '../../core/states'
import type { SopCheck, SopVersion } from '../../generated/prisma/client'
import { sign } from '../signatures'
import { keysetPage, type PageArgs } from '../../core/database'
import { forgetConnection } from '../adapters'
import { extractRequirements } from './extraction'
import { QMS_API_VERSION, QmsSettingsInput, qmsSettingsOf, settingsFromInput } from './settings'
import { PROVIDER_ID } from './sync'

type Ctx = Pick<DomainContext, 'session' | 'tdb'>
const READ = 'review.sops.read'
const MANAGE = 'review.sops.manage'
const APPROVE = 'review.sops.approve'
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

// ---- configuration ---------------------------------------------------------------------------------------------

/** Configures a QMS connection: the client id header value is validated here (at most 100 characters). */
export const configureQmsConnection = command({
  permission: 'program.connections.manage',
  input: QmsSettingsInput.extend({ id: IdInput }),
  load: async (q, input) => {
    const c = await q.connection.findFirst({ where: { id: input.id } })
    if (!c) throw new NotFoundError('Connection', { field: 'id' })
    return c
  },
  program: (_i, c) => c.programId,
  errors: [ConnectionDisconnected, UnsupportedApiVersion],
  audit: ['connection.qms_configure'],
  async run(w, input, c) {
    if (c.status !== 'active') throw new ConnectionDisconnected('This connection was disconnected; create a new one.')
    if (c.providerId !== PROVIDER_ID) throw new InvalidInput([{ field: 'id', message: 'not a QMS connection' }])
    if (!QMS_API_VERSION.test(c.apiVersion)) throw new UnsupportedApiVersion(`The QMS REST version has the form v{YY.N}; api_version ${c.apiVersion} is pinned.`, { field: 'apiVersion' })
    const previous = (c.providerSettings ?? {}) as Record<string, unknown>
    const settings = settingsFromInput(input, previous)
    const row = await w.tx.connection.update({ where: { id: c.id }, data: { providerSettings: settings as object, health: { status: 'unknown', checks: [], note: 'settings changed: run the health check' } } })
    await w.audit('connection.qms_configure', { type: 'connection', id: c.id }, {
      integration_user: settings.integration_user, instance_id: settings.instance_id, client_id_header: settings.client_id_header,
      query_template: settings.query_template, lifecycle_map: settings.lifecycle_map, rendition_type: settings.rendition_type,
    })
    w.afterCommit(() => forgetConnection(c.id))
    return row
  },
})

export function qmsConfiguration(c: { providerId: string; providerSettings: unknown }) {
  if (c.providerId !== PROVIDER_ID) return null
  const s = qmsSettingsOf(c as never)
  return s ? { ...s, lifecycle_map: Object.entries(s.lifecycle_map).map(([label, state]) => ({ label, state })) } : null
}

// ---- reads ----------------------------------------------------------------------------------------------------

export async function listSops(ctx: Ctx, programId: string, args: PageArgs = {}) {
  assertCan(ctx.session, READ, programId)
  return keysetPage(args, 'createdAt', (q) => ctx.tdb.sop.findMany({ ...q, where: { programId, ...q.where } }))
}

export async function getSop(ctx: Ctx, id: string) {
  if (!IdInput.safeParse(id).success) return null
  const sop = await ctx.tdb.sop.findFirst({ where: { id } })
  if (!sop) return null
  assertCan(ctx.session, READ, sop.programId)
  return sop
}

export function sopVersions(ctx: Ctx, sopId: string) {
  return ctx.tdb.sopVersion.findMany({ where: { sopId }, orderBy: [{ major: 'desc' }, { minor: 'desc' }] })
}

export async function getSopVersion(ctx: Ctx, id: string) {
  if (!IdInput.safeParse(id).success) return null
  const v = await ctx.tdb.sopVersion.findFirst({ where: { id } })
  if (!v) return null
  assertCan(ctx.session, READ, v.programId)
  return v
}

export async function getRequirementSet(ctx: Ctx, id: string) {
  if (!IdInput.safeParse(id).success) return null
  const r = await ctx.tdb.requirementSet.findFirst({ where: { id } })
  if (!r) return null
  assertCan(ctx.session, READ, r.programId)
  return r
}

export function requirementSetsOf(ctx: Ctx, sopVersionId: string) {
  return ctx.tdb.requirementSet.findMany({ where: { sopVersionId }, orderBy: { version: 'desc' } })
}

export function requirementsOf(ctx: Ctx, requirementSetId: string) {
  return ctx.tdb.requirement.findMany({ where: { requirementSetId }, orderBy: { number: 'asc' } })
}

export async function getCheck(ctx: Ctx, id: string) {
  if (!IdInput.safeParse(id).success) return null
  const c = await ctx.tdb.sopCheck.findFirst({ where: { id } })
  if (!c) return null
  assertCan(ctx.session, READ, c.programId)
  return c
}

export async function listChecks(ctx: Ctx, programId: string, args: PageArgs = {}) {
  assertCan(ctx.session, READ, programId)
  return keysetPage(args, 'createdAt', (q) => ctx.tdb.sopCheck.findMany({ ...q, where: { programId, ...q.where } }))
}

export function checkRows(ctx: Ctx, checkId: string) {
  return ctx.tdb.sopCheckRow.findMany({ where: { checkId }, include: { requirement: true }, orderBy: { requirement: { number: 'asc' } } })
}

// ---- local SOPs -------------------------------------------------------------------------------------------------

export const createLocalSop = command({
  permission: MANAGE,
  input: z.object({
    programId: IdInput,
    documentNumber: z.string().trim().min(1).max(100),
    documentType: z.string().trim().min(1).max(100),
    title: personText(300, 'a title is required'),
    text: z.string().min(1, 'the SOP text is required').max(200_000),
  }),
  program: (i) => i.programId,
  audit: ['sop.create', 'sop_version.update'],
  async run(w, input) {
    const { organizationId, userId } = w.ctx.session
    const sop = await w.tx.sop.create({ data: { organizationId, programId: input.programId, origin: 'local', documentNumber: input.documentNumber, documentType: input.documentType, title: input.title, createdByUserId: userId } })
    // A local SOP is a person's text: stored exactly (`pH <7 & T >25 °C` stays that). What the outside-text pass would
    // neutralise is recorded in sanitiser_findings; an agent reads the text through the tool server, which cleans it.
    const findings = sanitiseOutsideText(input.text).findings
    const version = await w.tx.sopVersion.create({
      data: {
        organizationId, programId: input.programId, sopId: sop.id, major: 1, minor: 0, externalVersionLabel: '1.0', lifecycleState: 'draft',
        text: input.text, textHash: sha256(input.text), textSource: 'local', sanitiserFindings: findings,
      },
    })
    await w.audit('sop.create', { type: 'sop', id: sop.id }, { origin: 'local', document_number: input.documentNumber, document_type: input.documentType })
    await w.audit('sop_version.update', { type: 'sop_version', id: version.id }, { created: true, version: '1.0', lifecycle_state: 'draft' })
    return sop
  },
})

/**
 * Approves a local SOP: its newest draft or in-review version becomes effective (signed, meaning approval), the
 * version effective before it superseded. A connector SOP answers sop_external: the QMS is authoritative.
 */
export const approveSop = onId(command({
  permission: APPROVE,
  input: z.object({ id: IdInput }),
  load: async (q, { id }) => {
    const sop = await q.sop.findFirst({ where: { id } })
    if (!sop) throw new NotFoundError('SOP', { field: 'id' })
    return sop
  },
  program: (_i, sop) => sop.programId,
  errors: [SopExternal, InvalidTransition, FreshSignInRequired],
  audit: ['sop.approve', 'sop_version.update', 'signature.create'],
  async run(w, _input, sop) {
    if (sop.origin !== 'local') throw new SopExternal('This SOP is managed in the connected QMS; approve it there. For a connector SOP the binding decision is accepting its requirement set.', { field: 'id' })
    const [version] = await w.tx.sopVersion.findMany({ where: { sopId: sop.id }, orderBy: [{ major: 'desc' }, { minor: 'desc' }], take: 1 })
    if (!version || !['draft', 'in_review'].includes(version.lifecycleState)) {
      throw new InvalidTransition(version?.lifecycleState ?? null, 'effective', `This SOP's newest version is ${version?.lifecycleState ?? 'missing'}; approve applies only to a draft or in-review version.`)
    }
    const now = new Date()
    const signature = await sign(w as unknown as Write<'signature.create'>, { programId: sop.programId, meaning: 'approval', targetType: 'sop_version', targetId: version.id, signedAt: now })
    // Guarded (approve_local: draft or in_review -> effective): of two concurrent approvals one wins.
    const moved = await w.tx.sopVersion.updateMany({
      where: { id: version.id, lifecycleState: { in: ['draft', 'in_review'] } },
      data: { lifecycleState: 'effective', effectiveAt: now, effectiveOnObserved: false, approvedByUserId: w.ctx.session.userId, approvalSignatureId: signature.id },
    })
    if (moved.count !== 1) throw new InvalidTransition(version.lifecycleState, 'effective', 'This version was approved meanwhile.')
    const previous = await w.tx.sopVersion.updateManyAndReturn({ where: { sopId: sop.id, id: { not: version.id }, lifecycleState: 'effective' }, data: { lifecycleState: 'superseded', supersededAt: now } })
    await w.audit('sop.approve', { type: 'sop', id: sop.id }, { version_id: version.id, version: `${version.major}.${version.minor}` }, { signatureId: signature.id })
    await w.audit('sop_version.update', { type: 'sop_version', id: version.id }, { changes: { lifecycleState: { from: version.lifecycleState, to: 'effective' } } })
    for (const p of previous) await w.audit('sop_version.update', { type: 'sop_version', id: p.id }, { changes: { lifecycleState: { from: 'effective', to: 'superseded' }, supersededAt: { from: null, to: now.toISOString() } } })
    if (previous.length) {
      await transitionAll(w.tx, requirementSetStatus, 'supersede', { sopVersionId: { in: previous.map((p) => p.id) } })
    }
    return w.tx.sop.findFirstOrThrow({ where: { id: sop.id } })
  },
}))

// ---- requirement sets -------------------------------------------------------------------------------------------

/** Extracts a requirement set (draft) from a version's text: numbered rows with anchors into that text. */
export const extractRequirementSet = command({
  permission: MANAGE,
  input: z.object({ sopVersionId: IdInput }),
  load: async (q, { sopVersionId }) => {
    const v = await q.sopVersion.findFirst({ where: { id: sopVersionId }, include: { sop: true } })
    if (!v) throw new NotFoundError('SOP version', { field: 'sopVersionId' })
    return v
  },
  program: (_i, v) => v.programId,
  audit: ['requirement_set.create'],
  async run(w, _input, v) {
    if (v.deletedAt) throw new InvalidInput([{ field: 'sopVersionId', message: 'this version was deleted in the QMS' }])
    const rows = extractRequirements(v.text)
    if (!rows.length) throw new InvalidInput([{ field: 'sopVersionId', message: 'no requirement (a sentence with shall or must) was found in this version\'s text' }])
    const last = await w.tx.requirementSet.findFirst({ where: { sopVersionId: v.id }, orderBy: { version: 'desc' }, select: { version: true } })
    const set = await w.tx.requirementSet.create({
      data: {
        organizationId: v.organizationId, programId: v.programId, sopVersionId: v.id, version: (last?.version ?? 0) + 1,
        title: `${v.sop.documentNumber} v${v.major}.${v.minor} requirements`, textHash: v.textHash ?? sha256(v.text), extractedFrom: v.textSource ?? 'text_endpoint',
        createdByUserId: w.ctx.session.userId,
      },
    })
    await w.tx.requirement.createMany({ data: rows.map((r) => ({ organizationId: v.organizationId, requirementSetId: set.id, ...r })) })
    await w.audit('requirement_set.create', { type: 'requirement_set', id: set.id }, { sop_version_id: v.id, requirements: rows.length, text_hash: set.textHash })
    return set
  },
})

/**
 * Accepts a requirement set: the binding decision for a connector SOP. Only a set of an effective version can be
 * accepted; it is signed (meaning approval), audited requirement_set.accept, and supersedes any set accepted before
 * for the same version.
 */
export const acceptRequirementSet = onId(command({
  permission: MANAGE,
  input: z.object({ id: IdInput }),
  load: async (q, { id }) => {
    const r = await q.requirementSet.findFirst({ where: { id }, include: { sopVersion: true } })
    if (!r) throw new NotFoundError('Requirement set', { field: 'id' })
    return r
  },
  program: (_i, r) => r.programId,
  errors: [InvalidTransition, FreshSignInRequired],
  audit: ['requirement_set.accept', 'signature.create'],
  async run(w, _input, r) {
    const v = r.sopVersion
    if (v.lifecycleState !== 'effective' || v.deletedAt) {
      throw new InvalidInput([{ field: 'id', message: `the SOP version is ${v.deletedAt ? 'deleted in the QMS' : v.lifecycleState}; only effective versions bind checks` }])
    }
    if (r.textHash !== (v.textHash ?? r.textHash)) throw new InvalidInput([{ field: 'id', message: 'the version text changed since this set was extracted: extract it again' }])
    const now = new Date()
    await transitionAll(w.tx, requirementSetStatus, 'supersede', { sopVersionId: v.id, id: { not: r.id }, status: 'accepted' })
    const signature = await sign(w as unknown as Write<'signature.create'>, { programId: r.programId, meaning: 'approval', targetType: 'requirement_set', targetId: r.id, signedAt: now })
    const row = await transition(w.tx, requirementSetStatus, 'accept', r, {
      acceptedByUserId: w.ctx.session.userId, acceptedAt: now, signatureId: signature.id, signatureMeaning: signature.meaning,
    })
    await w.audit('requirement_set.accept', { type: 'requirement_set', id: r.id }, { sop_version_id: v.id, meaning: signature.meaning, version: `${v.major}.${v.minor}` }, { signatureId: signature.id })
    return row
  },
}))

// ---- checks -----------------------------------------------------------------------------------------------------

/** The effective (binding) version of a document type in a program: the one that became effective last. */
export async function effectiveVersionFor(q: Pick<Ctx['tdb'], 'sopVersion'>, programId: string, documentType: string): Promise<SopVersion | null> {
  return q.sopVersion.findFirst({
    where: { programId, lifecycleState: 'effective', deletedAt: null, sop: { documentType, deletedAt: null } },
    orderBy: [{ effectiveAt: 'desc' }, { major: 'desc' }, { minor: 'desc' }],
  })
}

/** Writes a check and its rows (one per requirement of the accepted set, pending), in the caller's transaction. */
async function writeCheck(w: Write<'sop_check.create'>, input: { programId: string; sourceId: string; documentType: string; launchId?: string | null }): Promise<SopCheck> {
  const source = await w.tx.source.findFirst({ where: { id: input.sourceId, programId: input.programId } })
  if (!source) throw new NotFoundError('Source', { field: 'sourceId' })
  if (source.sourceType !== 'eln_entry') throw new InvalidInput([{ field: 'sourceId', message: 'a check binds a notebook entry (source of type eln_entry)' }])
  const version = await effectiveVersionFor(w.tx, input.programId, input.documentType)
  if (!version) throw new NotFoundError('Effective SOP version', { field: 'documentType' })
  const set = await w.tx.requirementSet.findFirst({ where: { sopVersionId: version.id, status: 'accepted' } })
  const check = await w.tx.sopCheck.create({
    data: {
      organizationId: w.ctx.session.organizationId, programId: input.programId, sourceId: source.id, sourceType: 'eln_entry', documentType: input.documentType,
      sopVersionId: version.id, requirementSetId: set?.id ?? null, launchId: input.launchId ?? null, createdByUserId: w.ctx.session.userId,
    },
  })
  if (set) {
    const reqs = await w.tx.requirement.findMany({ where: { requirementSetId: set.id }, select: { id: true } })
    await w.tx.sopCheckRow.createMany({ data: reqs.map((r) => ({ organizationId: check.organizationId, checkId: check.id, requirementId: r.id })) })
  }
  await w.audit('sop_check.create', { type: 'sop_check', id: check.id }, { source_id: source.id, sop_version_id: version.id, requirement_set_id: set?.id ?? null, launch_id: input.launchId ?? null })
  return check
}

export const createCheck = command({
  permission: MANAGE,
  input: z.object({ programId: IdInput, sourceId: IdInput, documentType: z.string().trim().min(1).max(100) }),
  program: (i) => i.programId,
  audit: ['sop_check.create'],
  run: (w, input) => writeCheck(w, input),
})

/**
 * The check a canvas launch opens ("Check this entry against the effective SOP"): the launch's entry against the
 * effective version of the first document type of the program's QMS connection that has one. Null (with the reason)
 * when the entry is not mirrored or no effective SOP exists; the launch still opens.
 */
export async function checkForLaunch(w: Write<'sop_check.create'>, launch: { id: string; programId: string; sourceId: string | null }): Promise<{ checkId: string | null; reason: string | null }> {
  if (!launch.sourceId) return { checkId: null, reason: 'the entry is not mirrored yet' }
  const qms = await w.tx.connection.findFirst({ where: { programId: launch.programId, providerId: PROVIDER_ID, status: 'active' }, orderBy: { createdAt: 'desc' } })
  const types = qms ? ((qms.scopeRules as { document_types?: string[] }).document_types ?? []) : []
  const local = await w.tx.sop.findMany({ where: { programId: launch.programId, origin: 'local', deletedAt: null }, select: { documentType: true }, distinct: ['documentType'] })
  for (const documentType of [...types, ...local.map((l) => l.documentType)]) {
    if (await effectiveVersionFor(w.tx, launch.programId, documentType)) {
      const check = await writeCheck(w, { programId: launch.programId, sourceId: launch.sourceId, documentType, launchId: launch.id })
      return { checkId: check.id, reason: null }
    }
  }
  return { checkId: null, reason: 'no effective SOP version in this program' }
}

/** Marks one row of a check met or not met (with a note and evidence references). */
export const setCheckRow = command({
  permission: MANAGE,
  input: z.object({
    checkId: IdInput, requirementId: IdInput, outcome: z.enum(['met', 'not_met']), note: personText(2000).nullish(),
    evidence: z.array(z.object({ kind: z.string().trim().min(1).max(100).nullish(), ref: z.string().trim().min(1).max(500) })).max(100).nullish(),
  }),
  load: async (q, { checkId, requirementId }) => {
    const row = await q.sopCheckRow.findFirst({ where: { checkId, requirementId }, include: { check: true } })
    if (!row) throw new NotFoundError('Check row', { field: 'requirementId' })
    return row
  },
  program: (_i, row) => row.check.programId,
  audit: ['sop_check_row.update'],
  async run(w, input, row) {
    const updated = await w.tx.sopCheckRow.update({
      where: { id: row.id },
      data: { outcome: input.outcome, note: input.note ?? null, evidence: (input.evidence ?? []) as object, decidedByUserId: w.ctx.session.userId, decidedAt: new Date() },
      include: { requirement: true },
    })
    await w.audit('sop_check_row.update', { type: 'sop_check', id: row.checkId }, { requirement_id: row.requirementId, from: row.outcome, to: input.outcome })
    return updated
  },
})

/**
 * The qa.check_readiness input of a check (the skill reads the rows): the accepted requirement set with each
 * requirement's SOP anchor and lifecycle state, and the rows marked met as evidence (their references, or the row).
 */
export async function checkReadinessInput(ctx: Ctx, checkId: string) {
  const check = await getCheck(ctx, checkId)
  if (!check) throw new NotFoundError('Check', { field: 'checkId' })
  if (!check.requirementSetId) throw new InvalidInput([{ field: 'checkId', message: 'this check has no accepted requirement set' }])
  const set = await ctx.tdb.requirementSet.findFirstOrThrow({ where: { id: check.requirementSetId }, include: { sopVersion: { include: { sop: true } }, requirements: { orderBy: { number: 'asc' } } } })
  const rows = await ctx.tdb.sopCheckRow.findMany({ where: { checkId } })
  const v = set.sopVersion
  const evidence = rows.filter((r) => r.outcome === 'met').flatMap((r) => {
    const refs = (r.evidence as { kind?: string | null; ref: string }[])
    const ref = set.requirements.find((q) => q.id === r.requirementId)!.ref
    return refs.length
      ? refs.map((e) => ({ requirement_id: ref, ...(e.kind ? { kind: e.kind } : {}), ref: e.ref }))
      : [{ requirement_id: ref, ref: `sop_check:${check.id}#${ref}` }]
  })
  return {
    check: { id: check.id, evidence },
    requirement_set: {
      id: set.id, version: String(set.version), accepted: set.status === 'accepted',
      ...(set.acceptedAt ? { accepted_on: set.acceptedAt.toISOString().slice(0, 10) } : {}),
      requirements: set.requirements.map((q) => ({
        id: q.ref, text: q.text,
        sop: { document_number: v.sop.documentNumber, version: `${v.major}.${v.minor}`, section: q.section, lifecycle_state: v.lifecycleState },
      })),
    },
  }
}
