// The notebook provider handler's agent-facing read: an entry's text as an agent may read it. The entry is flattened
// as it is stored (flattenEntry) and then passes the shared outside-text sanitiser (documentTextForAgent), so text a
// notebook author wrote can never act as an instruction to a twin.
import type { Sanitised } from '../../../../core/sanitiser'
import { documentTextForAgent } from '../documents'
import { flattenEntry, type NotebookEntry } from './canonical'

export function entryTextForAgent(entry: NotebookEntry): Sanitised {
  return documentTextForAgent(flattenEntry(entry).text)
}
