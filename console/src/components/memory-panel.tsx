// The memory panel: what the person's twin remembers, docked beside the role home's regions while the address carries
// ?remembers=1. Its three regions in the specification's order; Forget and Remove as two-step controls; Keep across
// programs and Suggest for the role as one-line inline forms (Suggest disabled in this release). Never a dialog.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useMutation, useQuery } from 'urql'
import { ForgetMemoryDocument, MyMemoryDocument, PromoteMemoryDocument, type PanelMemoryFragment } from '../generated/graphql'
import { MEMORY, MEMORY_PANEL, sharedBy, viewedBy } from '../copy'
import { describeError, typedErrorMessage } from '../api/errors'
import { formatDate } from '../format'

const [IN_THIS_PROGRAM, ABOUT_YOU] = MEMORY_PANEL.regions
const { controls } = MEMORY_PANEL
/** The kinds that travel across programs (the memory document's promote rule); others read the disabled line. */
const TRAVELS = new Set(['preference', 'vocabulary', 'rubric_adjustment'])
/** How long an armed 'Confirm forget' waits before it reverts on its own (the document says a few seconds). */
const ARMED_MS = 6000

interface Props {
  programId: string
  /** Plural of the workbench role (or persona) the person works as, for 'Shared by <role plural>'. */
  rolePlural: string
  onClose: () => void
}

export function MemoryPanel({ programId, rolePlural, onClose }: Props) {
  const headingId = useId()
  const [{ data, error, fetching }, refetch] = useQuery({ query: MyMemoryDocument, variables: { programId }, requestPolicy: 'network-only' })
  // Records forgotten here: their place keeps the line that says so until the panel closes.
  const [forgotten, setForgotten] = useState<Set<string>>(new Set())
  const ref = useRef<HTMLElement>(null)
  useEffect(() => ref.current?.focus(), [])

  // The service no longer lists a forgotten record: it keeps its place here, with the line that says so.
  const shown = useRef<PanelMemoryFragment[]>([])
  const records = useMemo(() => {
    const out = [...(data?.myMemory?.nodes ?? [])]
    shown.current.forEach((r, i) => {
      if (forgotten.has(r.id!) && !out.some((o) => o.id === r.id)) out.splice(Math.min(i, out.length), 0, r)
    })
    shown.current = out
    return out
  }, [data, forgotten])
  const live = (r: PanelMemoryFragment) => forgotten.has(r.id!) || r.status !== 'forgotten' || Boolean(r.removal)
  const inProgram = records.filter((r) => r.tier === 'individual' && live(r))
  const aboutYou = records.filter((r) => r.tier === 'person' && live(r))

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && !e.defaultPrevented) {
      e.preventDefault()
      onClose()
    }
  }
  const renderList = (list: PanelMemoryFragment[], empty: string) => list.length ? (
    <ul className="memory-list">
      {list.map((r) => (
        <li key={r.id}>
          <MemoryItem record={r} programId={programId} forgotten={forgotten.has(r.id!)}
            onForgotten={() => setForgotten((s) => new Set(s).add(r.id!))}
            onKeptAcross={() => refetch({ requestPolicy: 'network-only' })} />
        </li>
      ))}
    </ul>
  ) : <p className="muted">{empty}</p>

  return (
    <aside id="memory-panel" className="memory-panel" aria-labelledby={headingId} tabIndex={-1} ref={ref} onKeyDown={onKeyDown}>
      <div className="panel-head">
        <h2 id={headingId}>What your twin remembers</h2>
        <button type="button" className="quiet" onClick={onClose}>Close</button>
      </div>
      <p>{MEMORY.savesNothingUnlessYouSay}</p>
      <p className="muted">{MEMORY.neverUsedToTrain}</p>
      {error && !data ? <p role="alert" className="problem">{describeError(error)}</p> : null}
      {fetching && !data ? <p role="status">Loading…</p> : null}

      <section aria-labelledby={`${headingId}-program`} className="memory-region">
        <h3 id={`${headingId}-program`}>{IN_THIS_PROGRAM}</h3>
        {data ? renderList(inProgram, 'Nothing kept in this program.') : null}
      </section>
      <section aria-labelledby={`${headingId}-you`} className="memory-region">
        <h3 id={`${headingId}-you`}>{ABOUT_YOU}</h3>
        {data ? renderList(aboutYou, 'Nothing kept across programs.') : null}
      </section>
      <section aria-labelledby={`${headingId}-shared`} className="memory-region">
        <h3 id={`${headingId}-shared`}>{sharedBy(rolePlural)}</h3>
        <p className="muted">{MEMORY.sharedMemoryHoldsMethods}</p>
        <p className="muted">{MEMORY_PANEL.suggestArrivesLater}</p>
      </section>
    </aside>
  )
}

function MemoryItem({ record, programId, forgotten, onForgotten, onKeptAcross }: {
  record: PanelMemoryFragment; programId: string; forgotten: boolean; onForgotten: () => void; onKeptAcross: () => void
}) {
  const id = useId()
  const [problem, setProblem] = useState('')
  const [form, setForm] = useState<'none' | 'keep' | 'suggest'>('none')
  // Said before anyone tries (the record's viewerCanKeepAcrossPrograms), and still after a refusal should the
  // persona change while the panel is open.
  const [refusedKeep, setRefusedKeep] = useState(false)
  const cannotKeep = refusedKeep || record.viewerCanKeepAcrossPrograms === false
  const [{ fetching: forgetting }, forget] = useMutation(ForgetMemoryDocument)
  const [{ fetching: promoting }, promote] = useMutation(PromoteMemoryDocument)
  const done = useRef<HTMLParagraphElement>(null)
  useEffect(() => { if (forgotten) done.current?.focus() }, [forgotten])

  if (forgotten) return <p className="forgotten" role="status" tabIndex={-1} ref={done}>{MEMORY_PANEL.forgotten}</p>
  if (record.status === 'forgotten' && record.removal) {
    return (
      <p className="muted">
        Removed{record.removal.byName ? ` by ${record.removal.byName}` : ''}{record.removal.at ? ` on ${formatDate(record.removal.at)}` : ''}
        {record.removal.reason ? `: ${record.removal.reason}` : '.'}
      </p>
    )
  }

  const doForget = async () => {
    setProblem('')
    const res = await forget({ id: record.id! })
    if (res.error) return setProblem(describeError(res.error) ?? '')
    if (res.data?.forgetMemory?.__typename === 'MutationForgetMemorySuccess') return onForgotten()
    setProblem(typedErrorMessage(res.data?.forgetMemory))
  }
  const doKeepAcross = async () => {
    setProblem('')
    const res = await promote({ programId, id: record.id! })
    const out = res.data?.promoteMemory
    // Without program.agent_memory.manage the gateway refuses: the control reads its disabled line instead.
    if (res.error?.graphQLErrors.some((e) => String(e.extensions?.code ?? '').toUpperCase() === 'FORBIDDEN')) return setRefusedKeep(true)
    if (res.error) return setProblem(describeError(res.error) ?? '')
    if (out?.__typename === 'MutationPromoteMemorySuccess') {
      setForm('none')
      return onKeptAcross()
    }
    setProblem(typedErrorMessage(out))
  }

  const individual = record.tier === 'individual'
  const travels = TRAVELS.has(record.kind ?? '')
  const keepLine = !travels ? MEMORY_PANEL.kindDoesNotTravel : cannotKeep ? MEMORY_PANEL.cannotKeepAcrossPrograms : ''

  return (
    <article className="memory-item" aria-labelledby={`${id}-summary`}>
      <p id={`${id}-summary`} className="memory-summary">{record.summary}</p>
      {record.kind === 'episodic' ? <p className="muted">{MEMORY_PANEL.episodicReason}</p> : null}
      {(record.viewedBy ?? []).map((v, i) => v.name && v.at ? <p key={i} className="muted">{viewedBy(v.name, formatDate(v.at))}</p> : null)}
      <div className="actions">
        <TwoStep label={individual ? controls.forget : controls.remove} armedLabel={MEMORY_PANEL.confirmForget}
          busy={forgetting} describedBy={`${id}-summary`} onConfirm={() => void doForget()} />
        {individual ? (
          <>
            <button type="button" className="secondary" disabled={!travels || cannotKeep || promoting} aria-expanded={form === 'keep'}
              aria-describedby={keepLine ? `${id}-keep-line` : undefined} onClick={() => setForm(form === 'keep' ? 'none' : 'keep')}>
              {controls.keepAcrossPrograms}
            </button>
            <button type="button" className="secondary" disabled aria-describedby={`${id}-suggest-line`}>{controls.suggestForTheRole}</button>
          </>
        ) : null}
      </div>
      {individual && keepLine ? <p id={`${id}-keep-line`} className="muted">{keepLine}</p> : null}
      {individual ? <p id={`${id}-suggest-line`} className="muted">{MEMORY_PANEL.suggestArrivesLater}</p> : null}
      {form === 'keep' ? (
        <OneLineForm onCancel={() => setForm('none')}>
          <span>Copy this note to every program, without program names?</span>
          <button type="button" disabled={promoting} onClick={() => void doKeepAcross()} autoFocus>{controls.keep}</button>
          <button type="button" className="quiet" onClick={() => setForm('none')}>Cancel</button>
        </OneLineForm>
      ) : null}
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
    </article>
  )
}

/** A one-line inline form: Escape cancels it (and does not close the panel). */
function OneLineForm({ children, onCancel }: { children: ReactNode; onCancel: () => void }) {
  return (
    <div className="one-line-form" role="group" aria-label={controls.keepAcrossPrograms}
      onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); onCancel() } }}>
      {children}
    </div>
  )
}

/**
 * A two-step control: the first press arms it ('Confirm forget'), the second acts. Escape, moving the focus away,
 * clicking elsewhere or a few seconds' wait disarm it.
 */
function TwoStep({ label, armedLabel, busy, describedBy, onConfirm }: { label: string; armedLabel: string; busy: boolean; describedBy: string; onConfirm: () => void }) {
  const [armed, setArmed] = useState(false)
  useEffect(() => {
    if (!armed) return
    const t = setTimeout(() => setArmed(false), ARMED_MS)
    return () => clearTimeout(t)
  }, [armed])
  return (
    <button type="button" className={armed ? 'danger' : 'quiet'} disabled={busy} aria-describedby={describedBy}
      onClick={() => { if (armed) { setArmed(false); onConfirm() } else setArmed(true) }}
      onBlur={() => setArmed(false)}
      onKeyDown={(e) => { if (e.key === 'Escape' && armed) { e.preventDefault(); setArmed(false) } }}>
      {armed ? armedLabel : label}
    </button>
  )
}
