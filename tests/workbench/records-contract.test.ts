// The records contract as the decisions helper (twins subgraph) uses it, without transport: a change applied inside
// the caller's write as the deciding person, with provenance on the version, live permissions, typed refusals naming
// the field, nothing half-applied, and current versions for the basis check.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { command, contextForUser } from '../../core/jobs'
import { InvalidInput, InvalidTransition, NotFoundError } from '../../core/errors'
import { IdInput } from '../../core/text'
import { z } from 'zod'
import { AUDIT_ACTIONS, TRIGGERABLE_ACTIONS } from '../../core/audit'
import { PERMISSIONS_BY_VERSION, PERSONA_BUNDLES, PROGRAM_PERSONAS } from '../../core/permissions'
import {
  applyRecordChange, currentVersions, parseRecordChange, RECORD_TYPES, RECORD_TYPE_KEYS, versionFooter, currentVersionRow,
} from '../../domain/records'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'

// Persona v3 (R3): the scientist already lost the approve keys there (twins document, Versioning).
const t = useTestDatabase({ RELEASE: 'R3' })
const db = () => t.current.db

/** A stand-in for the decisions helper's own write (its proposal and inbox rows): joins the record change. */
const decideProposal = command({
  permission: 'program.settings.read',
  input: z.object({ programId: IdInput, change: z.unknown(), provenance: z.unknown(), failAfter: z.boolean().optional() }),
  program: (input) => input.programId,
  audit: ['approval.create'],
  async run(w, input) {
    const applied = await applyRecordChange(w.ctx, parseRecordChange(input.change), { within: w, provenance: input.provenance as never })
    await w.audit('approval.create', { type: 'proposal', id: randomUUID() }, { record_id: applied.recordId })
    if (input.failAfter) throw new Error('injected failure after the record change')
    return applied
  },
})

describe('the program records contract', () => {
  it('covers the fifteen record types with their keys, audit actions and GraphQL types', () => {
    expect(RECORD_TYPE_KEYS).toHaveLength(15)
    expect(RECORD_TYPES['evidence.hypotheses']).toMatchObject({
      graphqlType: 'HypothesisRecord',
      permissions: { read: 'evidence.hypotheses.read', manage: 'evidence.hypotheses.manage', approve: 'evidence.hypotheses.approve' },
      audit: { create: 'hypothesis.create', update: 'hypothesis.update', decide: 'hypothesis.decision' },
    })
    expect(RECORD_TYPES['plans.plans'].permissions.approve).toBe('plans.plans.approve')
    expect(RECORD_TYPES['progress.milestones'].audit.decide).toBe('milestone.update')
    expect(RECORD_TYPES['progress.approvals'].audit.create).toBe('approval.create')
    expect(RECORD_TYPES['plans.experiments'].audit.update).toBe('experiment.update')
  })

  it('uses only catalogue keys that exist from persona v3 on, each .manage held by some persona, and audit actions of the catalogue', () => {
    for (const key of RECORD_TYPE_KEYS) {
      const { permissions, audit } = RECORD_TYPES[key]
      for (const v of [3, 4, 5] as const) {
        for (const k of Object.values(permissions)) expect(PERMISSIONS_BY_VERSION[v], `${k} at v${v}`).toContain(k)
        expect(PROGRAM_PERSONAS.some((p) => PERSONA_BUNDLES[v][p].has(permissions.manage)), `${permissions.manage} held at v${v}`).toBe(true)
      }
      for (const a of Object.values(audit)) expect(AUDIT_ACTIONS).toContain(a)
    }
    for (const a of ['hypothesis.decision', 'milestone.update', 'experiment.update', 'approval.create']) expect(TRIGGERABLE_ACTIONS).toContain(a)
    expect(TRIGGERABLE_ACTIONS).toHaveLength(7)
  })

  it('names the offending field when a change does not validate', () => {
    const e = (() => { try { parseRecordChange({ kind: 'create', programId: randomUUID(), recordType: 'evidence.findings', title: 'x', fields: { kind: 'result', dose_mg_per_kg: -1, colour: 'red' } }) } catch (err) { return err } })()
    expect(e).toBeInstanceOf(InvalidInput)
    expect((e as InvalidInput).issues.map((i) => i.field).sort()).toEqual(['fields.colour', 'fields.dose_mg_per_kg'])
  })

  it('applies an approved change inside the caller write as the deciding person, with the proposal provenance and footer', async () => {
    const tenant = await createTenant(db(), 'Contract')
    const lead = await contextForUser(db(), tenant.users.program_lead.id, tenant.organization.id)
    const twinId = randomUUID()
    const provenance = { proposalId: randomUUID(), proposedByUserId: tenant.users.scientist.id, proposedByTwinId: twinId, runId: null }
    const created = await decideProposal(lead, {
      programId: tenant.program.id,
      change: { kind: 'create', programId: tenant.program.id, recordType: 'evidence.hypotheses', title: 'Series B binds the allosteric site', fields: { confidence: 'medium' } },
      provenance,
    })
    expect(created).toMatchObject({ version: 1, programId: tenant.program.id })
    const decided = await decideProposal(lead, { programId: tenant.program.id, change: { kind: 'decide', recordId: created.recordId, outcome: 'support' }, provenance })
    expect(decided.version).toBe(2)
    const record = await db().programRecord.findUniqueOrThrow({ where: { id: created.recordId } })
    expect(record).toMatchObject({ status: 'supported', version: 2 })
    const version = await currentVersionRow(lead, record)
    expect(version).toMatchObject({ proposalId: provenance.proposalId, proposedByTwinId: twinId, decidedByUserId: tenant.users.program_lead.id })
    expect(await versionFooter(lead, version)).toBe(`Proposed by ${tenant.users.scientist.name}'s twin (agent); decided by ${tenant.users.program_lead.name}`)
    const audit = await db().auditEvent.findMany({ where: { programId: tenant.program.id, targetId: created.recordId }, orderBy: { entrySeq: 'asc' } })
    expect(audit.map((a) => [a.action, a.actorUserId])).toEqual([['hypothesis.create', tenant.users.program_lead.id], ['hypothesis.decision', tenant.users.program_lead.id]])
    expect(await currentVersions(lead.tdb, [created.recordId, randomUUID(), 'not-an-id'])).toEqual(new Map([[created.recordId, 2]]))
  })

  it('leaves nothing behind when the caller write fails after the change', async () => {
    const tenant = await createTenant(db(), 'Rollback')
    const lead = await contextForUser(db(), tenant.users.program_lead.id, tenant.organization.id)
    const before = await db().auditEvent.count({ where: { programId: tenant.program.id } })
    await expect(decideProposal(lead, {
      programId: tenant.program.id, failAfter: true, provenance: { proposedByUserId: tenant.users.scientist.id, proposedByTwinId: randomUUID() },
      change: { kind: 'create', programId: tenant.program.id, recordType: 'plans.plans', title: 'Tox plan', fields: { plan_kind: 'nonclinical' } },
    })).rejects.toThrow('injected failure')
    expect(await db().programRecord.count({ where: { programId: tenant.program.id } })).toBe(0)
    expect(await db().programRecordVersion.count({ where: { organizationId: tenant.organization.id } })).toBe(0)
    expect(await db().auditEvent.count({ where: { programId: tenant.program.id } })).toBe(before)
  })

  it('checks the deciding person live: a scientist without the approve key is refused, a stale state is invalid_transition, a foreign id not found', async () => {
    const tenant = await createTenant(db(), 'Live')
    const other = await createTenant(db(), 'Other')
    const lead = await contextForUser(db(), tenant.users.program_lead.id, tenant.organization.id)
    const scientist = await contextForUser(db(), tenant.users.scientist.id, tenant.organization.id)
    expect(scientist.session.personaVersion).toBe(3)
    const { recordId } = await applyRecordChange(lead, { kind: 'create', programId: tenant.program.id, recordType: 'evidence.hypotheses', title: 'H1' })
    await expect(applyRecordChange(scientist, { kind: 'decide', recordId, outcome: 'support' }))
      .rejects.toMatchObject({ extensions: { code: 'FORBIDDEN', permission: 'evidence.hypotheses.approve' } })
    await applyRecordChange(lead, { kind: 'decide', recordId, outcome: 'withdraw' })
    await expect(applyRecordChange(lead, { kind: 'decide', recordId, outcome: 'support' })).rejects.toBeInstanceOf(InvalidTransition)
    const foreign = await contextForUser(db(), other.users.program_owner.id, other.organization.id)
    await expect(applyRecordChange(foreign, { kind: 'update', recordId, title: 'mine now' })).rejects.toBeInstanceOf(NotFoundError)
    expect(await currentVersions(foreign.tdb, [recordId])).toEqual(new Map())
  })
})
