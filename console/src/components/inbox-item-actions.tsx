// What the person can do with an inbox item besides deciding it: snooze it (at most 30 days, an inline form),
// dismiss it (only items that do not wait on a decision or signature: the API answers DecisionRequired otherwise, so
// the button is not offered), and say whether it was useful (evaluation data only).
import { useId, useState, type FormEvent } from 'react'
import { useMutation } from 'urql'
import {
  DismissInboxItemDocument, InboxFeedbackDocument, SnoozeInboxItemDocument,
  type InboxCardFragment, type InboxFeedbackValue,
} from '../generated/graphql'
import { describeError, typedErrorMessage } from '../api/errors'

/** Snooze choices, in days; the API allows at most 30. */
const SNOOZE_FOR: { days: number; label: string }[] = [
  { days: 1, label: 'One day' },
  { days: 3, label: 'Three days' },
  { days: 7, label: 'One week' },
  { days: 30, label: 'Thirty days' },
]

const FEEDBACK: { value: InboxFeedbackValue; label: string }[] = [
  { value: 'helpful', label: 'Helpful' },
  { value: 'not_useful', label: 'Not useful' },
]

type Result = { __typename: string; message?: string | null; issues?: { message?: string | null }[] | null } | null | undefined

function problemOf(res: { error?: Parameters<typeof describeError>[0]; data?: Record<string, Result> | null }, field: string): string {
  if (res.error) return describeError(res.error) ?? ''
  const out = res.data?.[field]
  if (!out || out.__typename.startsWith('Mutation')) return ''
  if (out.issues?.length) return out.issues.map((i) => i.message).join(' ')
  return typedErrorMessage(out)
}

export function InboxItemActions({ item, onChanged }: { item: InboxCardFragment; onChanged: (said: string) => void }) {
  const id = useId()
  const [snoozing, setSnoozing] = useState(false)
  const [days, setDays] = useState(1)
  const [problem, setProblem] = useState('')
  const [feedback, setFeedback] = useState(item.feedback ?? 'none')
  const [snooze, doSnooze] = useMutation(SnoozeInboxItemDocument)
  const [dismiss, doDismiss] = useMutation(DismissInboxItemDocument)
  const [, doFeedback] = useMutation(InboxFeedbackDocument)
  const busy = snooze.fetching || dismiss.fetching
  const title = item.proposal?.title ?? item.title ?? ''

  const submitSnooze = async (e: FormEvent) => {
    e.preventDefault()
    setProblem('')
    const until = new Date(Date.now() + days * 86_400_000).toISOString()
    const res = await doSnooze({ id: item.id!, until })
    const p = problemOf(res as never, 'snoozeInboxItem')
    if (p) return setProblem(p)
    setSnoozing(false)
    onChanged(`Snoozed: ${title}.`)
  }
  const submitDismiss = async () => {
    setProblem('')
    const res = await doDismiss({ id: item.id! })
    const p = problemOf(res as never, 'dismissInboxItem')
    if (p) return setProblem(p)
    onChanged(`Dismissed: ${title}.`)
  }
  const give = async (value: InboxFeedbackValue) => {
    setProblem('')
    const before = feedback
    setFeedback(value)
    const res = await doFeedback({ id: item.id!, feedback: value })
    const p = problemOf(res as never, 'inboxFeedback')
    if (p) {
      setFeedback(before)
      setProblem(p)
    }
  }

  return (
    <div className="item-actions">
      <div className="actions">
        <button type="button" className="quiet" aria-expanded={snoozing} disabled={busy} onClick={() => setSnoozing(!snoozing)}>Snooze</button>
        {item.resolvable ? (
          <button type="button" className="quiet" disabled={busy} onClick={() => void submitDismiss()}>Dismiss</button>
        ) : null}
        <div className="feedback" role="group" aria-label={`Was this useful? ${title}`}>
          {FEEDBACK.map((f) => (
            <button key={f.value} type="button" className="quiet small" aria-pressed={feedback === f.value} onClick={() => void give(f.value)}>{f.label}</button>
          ))}
        </div>
      </div>
      {snoozing ? (
        <form className="inline-form" onSubmit={(e) => void submitSnooze(e)} onKeyDown={(e) => { if (e.key === 'Escape') setSnoozing(false) }}>
          <label htmlFor={`${id}-for`}>Snooze for</label>
          <select id={`${id}-for`} value={days} onChange={(e) => setDays(Number(e.target.value))} autoFocus>
            {SNOOZE_FOR.map((s) => <option key={s.days} value={s.days}>{s.label}</option>)}
          </select>
          <p className="muted">It comes back to your inbox then.</p>
          <div className="actions">
            <button type="submit" disabled={busy}>Snooze this item</button>
            <button type="button" className="quiet" onClick={() => setSnoozing(false)}>Cancel</button>
          </div>
        </form>
      ) : null}
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
    </div>
  )
}
