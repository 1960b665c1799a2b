// The workbench role line of the role home: the prompt to choose one while none is set, the lead's assignment
// ('Set by <Name> on <date>. Change'), and the picker itself as an inline form with its fixed sentence.
import { useState, type FormEvent } from 'react'
import { useMutation, useQuery } from 'urql'
import { SetMyWorkbenchRoleDocument, WorkbenchRolesDocument } from '../generated/graphql'
import { WORKBENCH, setBy as setByLine } from '../copy'
import { describeError, typedErrorMessage } from '../api/errors'

interface Props {
  programId: string
  current: string | null
  currentKey: string | null
  setBy: { name: string; date: string } | null
  onChanged: () => void
}

export function WorkbenchRolePicker({ programId, current, currentKey, setBy, onChanged }: Props) {
  const [open, setOpen] = useState(false)
  // 'Set by <Name> on <date>. Change': the sentence, then its last word as the control that opens the picker.
  const assigned = setBy ? setByLine(setBy.name, setBy.date) : ''
  const changeAt = assigned.lastIndexOf(' ') + 1
  return (
    <div className="role-line">
      {current ? (
        <p>
          <span className="label">Workbench role:</span> <strong>{current}</strong>
          {setBy ? (
            <span className="muted"> {assigned.slice(0, changeAt)}
              <button type="button" className="link" aria-expanded={open} onClick={() => setOpen(!open)}>{assigned.slice(changeAt)}</button>
            </span>
          ) : (
            <> <button type="button" className="link" aria-expanded={open} onClick={() => setOpen(!open)}>Change workbench role</button></>
          )}
        </p>
      ) : (
        <p>
          <button type="button" className="link strong" aria-expanded={open} onClick={() => setOpen(!open)}>{WORKBENCH.chooseYourWorkbenchRole}</button>
        </p>
      )}
      {open ? <PickerForm programId={programId} currentKey={currentKey} onDone={() => { setOpen(false); onChanged() }} onCancel={() => setOpen(false)} /> : null}
    </div>
  )
}

function PickerForm({ programId, currentKey, onDone, onCancel }: { programId: string; currentKey: string | null; onDone: () => void; onCancel: () => void }) {
  const [{ data, error }] = useQuery({ query: WorkbenchRolesDocument, variables: { programId } })
  const [{ fetching }, save] = useMutation(SetMyWorkbenchRoleDocument)
  const [choice, setChoice] = useState(currentKey ?? '')
  const [problem, setProblem] = useState('')
  const roles = (data?.workbenchRoles ?? []).filter((r) => r.pickable)
  // The specification's suggested first choices come first, in their own group; the rest keep catalogue order.
  const suggested = roles.filter((r) => r.suggestedFirst)
  const others = roles.filter((r) => !r.suggestedFirst)

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setProblem('')
    const res = await save({ programId, workbenchRoleKey: choice || null })
    const out = res.data?.updateMySettings
    if (res.error) setProblem(describeError(res.error) ?? '')
    else if (out?.__typename === 'MutationUpdateMySettingsSuccess') onDone()
    else setProblem(typedErrorMessage(out))
  }

  return (
    <form className="inline-form" onSubmit={submit} onKeyDown={(e) => { if (e.key === 'Escape') onCancel() }}>
      <p>{WORKBENCH.pickerSentence}</p>
      {error ? <p role="alert" className="problem">{describeError(error)}</p> : null}
      <label htmlFor="workbench-role">Workbench role</label>
      <select id="workbench-role" value={choice} onChange={(e) => setChoice(e.target.value)}>
        <option value="">None (the home of your persona)</option>
        {suggested.length ? (
          <optgroup label="Suggested first choices">
            {suggested.map((r) => <option key={r.key} value={r.key!}>{r.name}</option>)}
          </optgroup>
        ) : null}
        {suggested.length && others.length ? (
          <optgroup label="Other workbench roles">
            {others.map((r) => <option key={r.key} value={r.key!}>{r.name}</option>)}
          </optgroup>
        ) : others.map((r) => <option key={r.key} value={r.key!}>{r.name}</option>)}
      </select>
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
      <div className="actions">
        <button type="submit" disabled={fetching}>Save</button>
        <button type="button" className="quiet" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  )
}
