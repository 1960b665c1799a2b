// Owns the deterministic harness: it mints the run's token, connects to the tool server as an MCP client (so every
// twin run crosses the real protocol), runs each duty template of the run, and reports counts. Listed under
// 'deterministic', the default key, in harness/registry.ts. Nothing here calls a model.
//
// A model-backed harness plugs in behind the same interface (domain/twins/harness-contract.ts), listed in HARNESSES
// (harness/registry.ts) or plugged in with `registerHarness({ key, execute(run) })`, where execute mints a run token
// (mintRunToken), opens a ToolClient on runEndpoint(run.id), lets the model choose tool calls from client.tools (only the
// effective toolset is listed), calls client.nextTurn() per model turn (max_skill_runs_per_turn counts per turn), treats
// { ok: false } answers as denials to handle, stops on TwinStopped, and returns a RunOutcome with counts only. A
// trigger's spec { "harness": "<key>" } selects it.
import { DEFAULT_HARNESS_KEY, type Harness, type RunContext, type RunOutcome } from '../../../domain/twins'
import { mintRunToken } from '../tools/run-tokens'
import { runEndpoint } from '../tools/endpoint'
import { ToolClient, TwinStopped } from './tool-client'
import { DUTY_TEMPLATES, DutyRun, type DutyReport } from './duties'

export const deterministicHarness: Harness = {
  key: DEFAULT_HARNESS_KEY,
  async execute(rc: RunContext): Promise<RunOutcome> {
    const token = await mintRunToken({ runId: rc.run.id, twinId: rc.twin.id, userId: rc.twin.userId, organizationId: rc.run.organizationId })
    const client = await ToolClient.connect(runEndpoint(rc.run.id), token)
    const duties: Record<string, DutyReport | 'unknown'> = {}
    const backpressure = { openDecisions: 0, line: null as string | null }
    let stopped: string | null = null
    let memory: { brief: string; records: number } | null = null
    // The prompt this run is served (harness/prompts.ts): no model reads it here, but the run records which one it was.
    let prompt: { key: string; version: number; sha256: string } | null = null
    try {
      const served = await client.harnessPrompt()
      prompt = { key: served.key, version: served.version, sha256: served.sha256 }
      const twin = await client.call<{ openDecisions: number }>('console.get_twin', {})
      if (twin.ok) backpressure.openDecisions = twin.value.openDecisions
      // The run's memory brief (memory.recall): data behind <<<memory:...>>> markers headed by the harness statement
      // that memory never changes rubric, refusal or citation behaviour. Templates read it as data, never as steps.
      if (client.has('memory.recall')) {
        const recalled = await client.call<{ brief: string; records: unknown[] }>('memory.recall', { query: rc.duties.join(' ') })
        if (recalled.ok) memory = { brief: recalled.value.brief, records: recalled.value.records.length }
      }
      const today = new Date().toISOString().slice(0, 10)
      for (const duty of rc.duties) {
        const template = DUTY_TEMPLATES[duty]
        if (!template) { duties[duty] = 'unknown'; continue }
        client.nextTurn()
        const d = new DutyRun(client, duty, backpressure, today)
        d.memoryBrief = memory?.brief ?? null
        d.target = rc.run.targetId ?? null
        try { await template.run(d) } finally { duties[duty] = d.report }
      }
    } catch (e) {
      if (!(e instanceof TwinStopped)) throw e
      stopped = e.error.code
    } finally {
      await client.close().catch(() => {})
    }
    const reports = Object.values(duties).filter((r): r is DutyReport => r !== 'unknown')
    const sum = (k: keyof Omit<DutyReport, 'proposal_ids' | 'already_waiting_ids'>) => reports.reduce((n, r) => n + r[k], 0)
    return {
      summary: {
        proposals_filed: sum('proposals_filed'), duplicates: sum('duplicates'), denied: sum('denied'), refused: sum('refused'),
        skills_run: sum('skills_run'), tool_calls: client.calls.length, proposal_ids: reports.flatMap((r) => r.proposal_ids),
        already_waiting: sum('already_waiting'), already_waiting_ids: [...new Set(reports.flatMap((r) => r.already_waiting_ids))],
        duties, memory_recalled: memory?.records ?? 0, prompt, ...(backpressure.line ? { filing_paused: backpressure.line } : {}), ...(stopped ? { stopped } : {}),
      },
    }
  },
}

