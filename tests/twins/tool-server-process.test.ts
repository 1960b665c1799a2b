// The tool server as its own process (`tsx subgraphs/twins/tools/main.ts`, how production runs it): a twin's tool call
// there is an audited write (tool_call.invoke), and the audit hooks that process installed act on it in the same
// transaction, as they do in every other process that records audit rows.
import { describe, expect, it } from 'vitest'
import { freePort } from '../../core/database'
import { contextForUser } from '../../core/jobs'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'
import { startComponentProcess } from '../helpers/processes'
import { gateCard, openStageGate } from '../../domain/gates'
import { connect, runningRun, writeRecord } from './tools-helpers'

const t = useTestDatabase()

describe('the tool server in its own process', () => {
  it("recomputes the program's open stage gate when a twin's tool call there is audited", async () => {
    const db = t.current.db
    const tenant = await createTenant(db, 'Tools process')
    const [stage, next] = await Promise.all(['discovery', 'preclinical'].map((key, position) => db.programStage.create({
      data: { organizationId: tenant.organization.id, programId: tenant.program.id, key, name: key, position },
    })))
    const lead = await contextForUser(db, tenant.users.program_lead.id, tenant.organization.id)
    const opened = await openStageGate(lead, {
      programId: tenant.program.id, stageId: stage.id, nextStageId: next.id,
      requiredRecords: [{ kind: 'decided_record', recordType: 'evidence.findings', min: 1 }],
    }) as { id: string }
    const gate = () => db.stageGate.findUniqueOrThrow({ where: { id: opened.id } })
    expect(gateCard(await gate())).toBe('0 of 1 required records present')
    // A finding confirmed behind the audit trail's back: no hook has seen it, so the gate's snapshot still says 0 of 1.
    const finding = await writeRecord(db, tenant, 'program_owner', { recordType: 'evidence.findings', title: 'NOAEL in rat', fields: { kind: 'result' } })
    await db.programRecord.update({ where: { id: finding.id }, data: { status: 'confirmed' } })
    expect(gateCard(await gate())).toBe('0 of 1 required records present')

    const run = await runningRun(db, tenant, 'program_lead') // mints the run's token (DATA_DIR/keys) before the process reads the key
    const port = await freePort()
    await using _tools = await startComponentProcess('subgraphs/twins/tools/main.ts', { DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir, TOOLS_PORT: String(port) })
    const client = await connect(`http://127.0.0.1:${port}`, run)
    try {
      expect((await client.call('console.get_twin', {})).ok).toBe(true)
    } finally { await client.close() }
    expect(await db.auditEvent.count({ where: { action: 'tool_call.invoke', details: { path: ['run_id'], equals: run.run.id } } })).toBe(1)
    expect(gateCard(await gate())).toBe('1 of 1 required records present')
  }, 180_000)
})
