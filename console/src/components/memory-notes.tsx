// The Keep / Not now question beneath the proposal it came from: a note the twin proposed is saved only if the person
// answers Keep (the memory document: 'Your twin saves nothing unless you say so.').
import { useState } from 'react'
import { useMutation } from 'urql'
import { AnswerMemoryNoteDocument, type InboxCardFragment, type MemoryNoteChoice } from '../generated/graphql'
import { MEMORY, MEMORY_PANEL } from '../copy'
import { describeError, typedErrorMessage } from '../api/errors'

type Note = NonNullable<InboxCardFragment['memoryNotes']>[number]

export function MemoryNotes({ notes }: { notes: Note[] }) {
  const shown = notes.filter((n) => n.status === 'open')
  if (!shown.length) return null
  return (
    <div className="memory-notes">
      <p className="label">Your twin asks to remember</p>
      <ul className="memory-list">
        {shown.map((n) => <li key={n.id}><MemoryNote note={n} /></li>)}
      </ul>
      <p className="muted">{MEMORY.savesNothingUnlessYouSay}</p>
    </div>
  )
}

function MemoryNote({ note }: { note: Note }) {
  const [{ fetching }, answer] = useMutation(AnswerMemoryNoteDocument)
  const [answered, setAnswered] = useState<MemoryNoteChoice | null>(null)
  const [problem, setProblem] = useState('')
  const send = async (choice: MemoryNoteChoice) => {
    setProblem('')
    const res = await answer({ id: note.id!, choice })
    const out = res.data?.answerMemoryNote
    if (res.error) return setProblem(describeError(res.error) ?? '')
    if (out?.__typename === 'MutationAnswerMemoryNoteSuccess') return setAnswered(choice)
    setProblem(typedErrorMessage(out))
  }
  return (
    <div className="memory-note" data-testid="memory-note">
      <p>{note.summary}</p>
      {answered ? (
        <p role="status">{answered === 'KEEP' ? 'Kept. Your twin remembers this in this program.' : 'Not kept. Nothing was saved.'}</p>
      ) : (
        <div className="actions" role="group" aria-label={`Remember: ${note.summary ?? ''}`}>
          <button type="button" className="secondary" disabled={fetching} onClick={() => void send('KEEP')}>{MEMORY_PANEL.controls.keep}</button>
          <button type="button" className="quiet" disabled={fetching} onClick={() => void send('NOT_NOW')}>{MEMORY_PANEL.controls.notNow}</button>
        </div>
      )}
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
    </div>
  )
}
