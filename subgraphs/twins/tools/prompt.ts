// Owns serving a run's harness prompt (issue 29, item 10) from the tool server: the MCP prompt HARNESS_PROMPT_NAME of
// every run is its harness's template (harness/prompts.ts) filled with the person's name, the program, what the run
// works as and the run's effective toolset now. Served over the same authenticated endpoint as the tools, so a
// model-backed harness gets its prompt with the run, and no prompt exists without a run token.
import { HARNESS_PROMPT_NAME, renderHarnessPrompt, type RenderedPrompt } from '../harness/prompts'
import { workingAsOf } from '../../../domain/proposals'
import { listToolsFor, type RunSession } from './call'

export { HARNESS_PROMPT_NAME }

export const HARNESS_PROMPT_DESCRIPTION = "The run's harness prompt: who the twin drafts for, what it works as, its tools, the refusal lines and the memory statement."

export async function runPrompt(session: RunSession): Promise<RenderedPrompt> {
  const { run, ctx } = session
  const program = await ctx.tdb.program.findFirst({ where: { id: run.programId, organizationId: run.organizationId }, select: { name: true } })
  const tools = (await listToolsFor(session)).map((t) => t.name)
  return renderHarnessPrompt(run, { name: ctx.session.name, program: program?.name ?? 'this program', workingAs: workingAsOf(run), tools })
}
