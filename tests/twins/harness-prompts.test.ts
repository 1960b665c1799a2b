// Harness prompt templates (issue 29, item 10; R4 gate list: "refusal lines present"; memory document: "Every harness
// prompt states that memory never changes rubric, refusal or citation behaviour"): every one of the twenty harnesses
// has a template with the refusal lines and the memory statement; the tool server serves the run's prompt with the
// run over MCP (prompts/get), filled for its person, program, role and toolset; the deterministic harness fetches it
// and records which prompt it ran under.
import { describe, expect, it } from 'vitest'
import { useStack } from '../helpers/stack'
import { createTenant } from '../helpers/factories'
import { contextForUser } from '../../core/jobs'
import { TWINS } from '../../core/text'
import { HARNESS_MEMORY_STATEMENT } from '../../domain/memory'
import { PERSONA_HARNESSES } from '../../subgraphs/twins/harness/persona-harnesses'
import { HARNESS_PROMPTS, HARNESS_PROMPT_VERSION, REFUSAL_LINES } from '../../subgraphs/twins/harness/prompts'
import { deterministicHarness } from '../../subgraphs/twins/harness/deterministic'
import type { RunContext } from '../../domain/twins'
import { connect, endpoint, runningRun } from './tools-helpers'

const stack = useStack()
const db = () => stack.db.db

describe('harness prompt templates', () => {
  it('gives every one of the twenty harnesses a template with every refusal line and the memory statement', () => {
    expect(PERSONA_HARNESSES).toHaveLength(20)
    expect(REFUSAL_LINES.length).toBeGreaterThanOrEqual(5)
    expect(REFUSAL_LINES[0]).toContain(TWINS.twinNeverApproves)
    for (const h of PERSONA_HARNESSES) {
      const template = HARNESS_PROMPTS.get(h.key)
      expect(template, h.key).toBeDefined()
      expect(template!.version).toBe(HARNESS_PROMPT_VERSION)
      for (const line of REFUSAL_LINES) expect(template!.text, `${h.key}: ${line}`).toContain(line)
      expect(template!.text).toContain(HARNESS_MEMORY_STATEMENT)
      expect(template!.text).toMatch(/never changes rubric, refusal or citation behaviour/)
      expect(template!.text).toContain(TWINS.twinProposesYouDecide)
    }
    // A workbench role's template names what the role decides; a neutral persona's does not pretend to be a role.
    expect(HARNESS_PROMPTS.get('dmpk_tox_scientist')!.text).toContain('NOAEL interpretation as proposals, species rationale, first-in-human inputs')
    expect(HARNESS_PROMPTS.get('scientist')!.text).toContain('under the neutral harness of that persona')
  })
})

describe('the prompt served with each run (MCP prompts/get)', () => {
  it("serves the run's harness prompt filled for the person, the program, the role worn and the run's toolset", async () => {
    const t = await createTenant(db(), 'Prompts')
    const r = await runningRun(db(), t, 'scientist')
    await db().agentRun.update({ where: { id: r.run.id }, data: { harnessKey: 'dmpk_tox_scientist', workbenchRoleKey: 'dmpk_tox_scientist' } })
    const client = await connect(stack.current.toolsUrl, r)
    const prompt = await client.harnessPrompt()
    expect(prompt).toMatchObject({ key: 'dmpk_tox_scientist', version: HARNESS_PROMPT_VERSION, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(prompt.text).toContain(`You are ${r.user.name}'s twin in the program ${t.program.name}`)
    expect(prompt.text).toContain('You work as DMPK and toxicology scientist (bioanalytical and safety pharmacology folded in). A person in this role decides:')
    expect(prompt.text).toMatch(/tools of this run: [^\n]*tox\.fih_dose_projection[^\n]*documents\.list_assets/)
    expect(prompt.text).not.toMatch(/<Name>|<program>|<tools>|<working as>/)
    for (const line of REFUSAL_LINES) expect(prompt.text).toContain(line)
    expect(prompt.text).toContain(HARNESS_MEMORY_STATEMENT)
    await client.close()
    // No prompt without the run's token.
    const res = await fetch(endpoint(stack.current.toolsUrl, r.run.id), {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'harness_prompt' } }),
    })
    expect(res.status).toBe(401)
  })

  it('is fetched by the deterministic harness, which records the prompt it ran under in the run outcome', async () => {
    const t = await createTenant(db(), 'Prompts run')
    const r = await runningRun(db(), t, 'program_lead')
    await db().agentRun.update({ where: { id: r.run.id }, data: { harnessKey: 'program_lead' } })
    const rc: RunContext = {
      run: r.run, twin: r.twin, trigger: null, duties: ['blocker_scan'], db: db(), footer: '',
      ctx: await contextForUser(db(), r.user.id, t.organization.id, { twinId: r.twin.id }),
    }
    const outcome = await deterministicHarness.execute(rc)
    expect(outcome.summary).toMatchObject({ prompt: { key: 'program_lead', version: HARNESS_PROMPT_VERSION, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } })
    // Counts and ids only: never the prompt's text.
    expect(JSON.stringify(outcome.summary)).not.toContain(REFUSAL_LINES[0])
  })
})
