// Test helpers for the tool server and the harness: a running twin run, an MCP client on it, records written by a
// person, and a raw POST for the protocol's edge cases.
import type { Db } from '../../core/database'
import { contextForUser } from '../../core/jobs'
import { createRecord } from '../../domain/records'
import { mintRunToken } from '../../subgraphs/twins/tools/run-tokens'
import { ToolClient } from '../../subgraphs/twins/harness/tool-client'
import type { Tenant, PersonaKey } from '../helpers/factories'
import { seedTwin } from './twin-helpers'

/** A twin of `persona` with a run already running (what the twin_cycle job hands a harness). */
export async function runningRun(db: Db, tenant: Tenant, persona: PersonaKey, opts: { kind?: 'twin_cycle' | 'twin_handoff'; budget?: number; duty?: string } = {}) {
  // One twin per person, program and persona: a later run of the same persona reuses it, active again.
  const user = tenant.users[persona]
  const existing = await db.twinDefinition.findFirst({ where: { programId: tenant.program.id, userId: user.id, personaKey: persona } })
  const twin = existing
    ? await db.twinDefinition.update({ where: { id: existing.id }, data: { status: 'active', pausedReason: null, budgetToolCallsMonth: opts.budget ?? 2000, duties: [opts.duty ?? 'blocker_scan'] } })
    : await db.twinDefinition.update({ where: { id: (await seedTwin(db, tenant, persona, { nextRunAt: null, duty: opts.duty })).twin.id }, data: { budgetToolCallsMonth: opts.budget ?? 2000 } })
  const seeded = { user, trigger: await db.twinTrigger.findFirst({ where: { twinId: twin.id } }) }
  const run = await db.agentRun.create({
    data: {
      organizationId: tenant.organization.id, programId: tenant.program.id, kind: opts.kind ?? 'twin_cycle', status: 'running',
      initiatedBy: 'user', startedByUserId: user.id, twinId: twin.id, triggerId: seeded.trigger?.id ?? null, startedAt: new Date(),
    },
  })
  const token = await mintRunToken({ runId: run.id, twinId: twin.id, userId: user.id, organizationId: tenant.organization.id })
  return { ...seeded, twin, run, token }
}

export const endpoint = (toolsUrl: string, runId: string) => new URL(`/runs/${runId}/mcp`, toolsUrl)

export function connect(toolsUrl: string, r: { run: { id: string }; token: string }) {
  return ToolClient.connect(endpoint(toolsUrl, r.run.id), r.token)
}

/** A record written by a person of the tenant (the records contract's own write path). */
export async function writeRecord(db: Db, tenant: Tenant, persona: PersonaKey | 'program_owner', input: { recordType: string; title: string; body?: string; fields?: Record<string, unknown> }) {
  const ctx = await contextForUser(db, tenant.users[persona].id, tenant.organization.id)
  const out = await createRecord(ctx, { programId: tenant.program.id, ...input }) as { record?: { id: string }; id?: string }
  return (out.record ?? out) as { id: string }
}

/** A raw JSON-RPC POST to a run's endpoint (for the edge: no token, wrong run, size). */
export async function rawPost(toolsUrl: string, runId: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(endpoint(toolsUrl, runId), {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  })
  const text = await res.text()
  let json: any = null
  try { json = JSON.parse(text) } catch { /* not JSON */ }
  return { status: res.status, json, text }
}

export const listToolsBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
