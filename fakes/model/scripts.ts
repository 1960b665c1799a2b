// Scripted behaviours of the fake model provider, in terms of what a request carries (either wire format): the last
// tool result the model was handed, and a drafting model (the demo's and the tests'): it reads the program's
// milestones, proposes an open item for the first past-due one with a draft that says what it read and cites it, then
// ends with one sentence. Illustrative: no model is involved.
import type { ModelRequest, Step } from './server'

/** The tool's name on the wire (both APIs allow no dots). */
export const wireName = (name: string) => name.replaceAll('.', '__')

/** The last tool result the model was handed, parsed (null before any). */
export function lastToolResult(r: ModelRequest): any {
  if (r.api === 'openai') {
    const m = [...r.body.messages].reverse().find((x: any) => x.role === 'tool')
    return m ? JSON.parse(m.content) : null
  }
  const m = [...r.body.messages].reverse().find((x: any) => x.role === 'user' && Array.isArray(x.content))
  const block = m?.content.find((b: any) => b.type === 'tool_result')
  return block ? JSON.parse(typeof block.content === 'string' ? block.content : block.content[0].text) : null
}

/** How many model turns the request carries already (assistant messages). */
const turnsSoFar = (r: ModelRequest) => r.body.messages.filter((m: any) => m.role === 'assistant').length

/** Reads the milestones, proposes an open item for the first past-due one (citing it), then stops. */
export function draftingModel(today = () => new Date().toISOString().slice(0, 10)) {
  return (r: ModelRequest): Step => {
    const offered: string[] = (r.body.tools ?? []).map((t: any) => (r.api === 'openai' ? t.function.name : t.name))
    const turn = turnsSoFar(r)
    if (turn === 0 && offered.includes(wireName('progress.list_milestones'))) {
      return { usage: { input: 1800, output: 60 }, toolCalls: [{ name: wireName('progress.list_milestones'), arguments: { first: 50 } }] }
    }
    const read = turn === 1 ? lastToolResult(r) : null
    const due = (read?.records ?? []).find((m: any) => typeof m.fields?.due_on === 'string' && m.fields.due_on < today() && m.status !== 'done' && m.status !== 'achieved')
    if (due && offered.includes(wireName('progress.propose_open_item'))) {
      return {
        usage: { input: 2600, output: 240 },
        toolCalls: [{
          name: wireName('progress.propose_open_item'),
          arguments: {
            change: { kind: 'create', title: `Blocker: ${due.title} is past due`, fields: {} },
            basisRecordIds: [due.id],
            draft: `I read the program's ${read.records.length} milestones. ${due.title} was due on ${due.fields.due_on} and is still ${due.status} [milestone ${due.id}], so work that depends on it is blocked. I propose an open item so the team agrees a new date or clears what holds it up.`,
          },
        }],
      }
    }
    return { usage: { input: 2900, output: 30 }, text: turn <= 1 ? 'No milestone is past due; nothing to propose.' : 'Filed one open item for the past-due milestone.' }
  }
}
