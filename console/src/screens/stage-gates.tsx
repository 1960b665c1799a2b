// The stage gates of a program (/p/<slug>/stage-gates): each gate's card with '<N> of <M> required records present'
// moving live as records are decided (stageGateReadinessChanged; events are not durable, so the list is refetched),
// mark ready, the review and the close signed with their meaning shown first (after a fresh sign-in where the last one
// is too old: api/auth.tsx), and the closed footer. Each step is offered only to whoever may take it (the gate's
// viewerCan… fields); anyone else reads whose step it is instead.
import { useCallback, useEffect, useId, useState } from 'react'
import { useMutation, useQuery, useSubscription } from 'urql'
import {
  BasisRecordDocument, CloseStageGateDocument, MarkStageGateReadyDocument, ReviewStageGateDocument, StageGateChangedDocument, StageGateListDocument,
  StageGatesDocument, type GateCardFragment,
} from '../generated/graphql'
import { requiredRecordsPresent } from '../copy'
import { describeError, typedErrorMessage } from '../api/errors'
import { RECONNECTED_EVENT } from '../api/client'
import { takePendingSignature, useSignatureStepUp } from '../api/auth'
import { formatDate, formatDateTime, asWritten } from '../format'
import { Link } from '../router'
import { ProgramUnavailable } from '../components/program-unavailable'

const STATUS: Record<string, string> = { open: 'Open', ready: 'Ready for review', reviewed: 'Reviewed, waiting to close', closed: 'Closed' }

export function StageGates({ slug }: { slug: string }) {
  const [{ data, fetching, error }, refetchProgram] = useQuery({ query: StageGatesDocument, variables: { slug } })
  // A closed gate moves the program's stage: the heading's line follows.
  const programChanged = useCallback(() => refetchProgram({ requestPolicy: 'network-only' }), [refetchProgram])
  const program = data?.program
  useEffect(() => { if (program?.name) document.title = `${program.name}: stage gates` }, [program?.name])

  if (fetching && !data) return <main id="main" className="page"><p role="status">Loading the program…</p></main>
  if (error && !data) return <main id="main" className="page"><p role="alert" className="problem">{describeError(error)}</p></main>
  if (!program?.id) {
    return <ProgramUnavailable />
  }
  return (
    <main id="main" className="page">
      <p><Link href={`/p/${slug}/home`}>Back to {program.name}</Link></p>
      <h1>Stage gates</h1>
      <p className="muted">{program.name}{program.currentStage?.name ? `, now in ${program.currentStage.name}` : ''}</p>
      <GateList programId={program.id} onChanged={programChanged} />
    </main>
  )
}

function GateList({ programId, onChanged }: { programId: string; onChanged: () => void }) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: StageGateListDocument, variables: { programId }, requestPolicy: 'cache-and-network' })
  const reload = useCallback(() => {
    refetch({ requestPolicy: 'network-only' })
    onChanged()
  }, [refetch, onChanged])
  useSubscription({ query: StageGateChangedDocument, variables: { programId } }, (_prev, event) => {
    reload()
    return event
  })
  useEffect(() => {
    window.addEventListener(RECONNECTED_EVENT, reload)
    return () => window.removeEventListener(RECONNECTED_EVENT, reload)
  }, [reload])

  // Gates still moving first, closed and superseded ones after them.
  const gates = [...(data?.stageGates?.nodes ?? [])].sort((a, b) => Number(a.status === 'closed') - Number(b.status === 'closed'))
  if (error && !data) return <p role="alert" className="problem">{describeError(error)}</p>
  if (fetching && !data) return <p role="status">Loading…</p>
  if (!gates.length) return <p className="muted">No stage gate is open in this program.</p>
  return (
    <ol className="cards">
      {gates.map((g) => <li key={g.id}><GateCard gate={g} onChanged={reload} /></li>)}
    </ol>
  )
}

type Required = NonNullable<GateCardFragment['requiredRecords']>[number]
/** 'evidence.findings' read as 'findings', 'tox.fih_dose_projection' as 'fih dose projection'. */
const words = (key: string | null | undefined) => (key ?? '').split('.').pop()!.replace(/_/g, ' ')

/** A requirement in words: the record's title when it names one, never an identifier or a type key. */
function Requirement({ requirement: r }: { requirement: Required }) {
  const [{ data }] = useQuery({ query: BasisRecordDocument, variables: { id: r.recordId ?? '' }, pause: !r.recordId })
  if (r.kind === 'decided_record') {
    if (r.recordId) return <>{data?.record?.title ?? 'A record you cannot open'}, decided</>
    // The API's label names the requirement as people do ('Target hypothesis decided'); the type only without one.
    if (r.label) return <>{r.label}</>
    return <>{(r.min ?? 1) === 1 ? 'One' : `At least ${r.min}`} decided record of the type {words(r.recordType)}</>
  }
  if (r.kind === 'requirement_set') return <>{r.label || 'An accepted requirement set'}</>
  if (r.kind === 'skill_result') return <>{r.label || 'A skill result'}</>
  return <>Every gate-critical milestone done</>
}

type Signing = 'none' | 'review' | 'close'

function GateCard({ gate, onChanged }: { gate: GateCardFragment; onChanged: () => void }) {
  const headingId = useId()
  // back from a fresh sign-in at the identity provider: the form the person was signing is open again
  const [resumed] = useState(() => takePendingSignature(`gate:${gate.id}:review`) ?? takePendingSignature(`gate:${gate.id}:close`))
  const [signing, setSigning] = useState<Signing>(resumed ? (resumed.key.endsWith(':review') ? 'review' : 'close') : 'none')
  const [problem, setProblem] = useState<string[]>([])
  const [refusedAsStale, setRefusedAsStale] = useState(false)
  const [{ fetching: marking }, markReady] = useMutation(MarkStageGateReadyDocument)
  const [{ fetching: reviewing }, review] = useMutation(ReviewStageGateDocument)
  const [{ fetching: closing }, close] = useMutation(CloseStageGateDocument)
  const busy = marking || reviewing || closing
  const title = `${gate.stage?.name ?? 'This stage'} to ${gate.nextStage?.name ?? 'the next stage'}`
  // A superseded gate is closed without signatures (and without the footer); only a signed close has one.

  const after = (res: { error?: Parameters<typeof describeError>[0]; data?: unknown }, out: { __typename: string; message?: string | null; missing?: string[] } | null | undefined) => {
    if (res.error) return setProblem([describeError(res.error) ?? ''])
    if (out?.__typename.endsWith('Success')) {
      setSigning('none')
      setProblem([])
      return onChanged()
    }
    // the service found the sign-in too old (clocks differ, or the form stayed open): the form asks for a fresh one
    if (out?.__typename === 'FreshSignInRequired') return setRefusedAsStale(true)
    setProblem([typedErrorMessage(out), ...(out?.missing ?? [])])
  }

  return (
    <article className={`card gate gate-${gate.status}`} aria-labelledby={headingId} data-testid="gate-card" data-gate={gate.id}>
      <h2 id={headingId}>{title}</h2>
      <p className="muted">{gate.status === 'closed' && !gate.footer ? 'Superseded by a later version' : STATUS[gate.status ?? ''] ?? ''}{gate.version && gate.version > 1 ? `, version ${gate.version}` : ''}</p>
      <p className="gate-count" data-testid="gate-count" aria-live="polite">{requiredRecordsPresent(gate.present ?? 0, gate.total ?? 0)}</p>
      <ul className="requirements">
        {(gate.requiredRecords ?? []).map((r) => (
          <li key={r.key} className={r.present ? 'present' : 'missing'}>
            <span className="visually-hidden">{r.present ? 'Present: ' : 'Missing: '}</span>
            <Requirement requirement={r} />
            {r.present ? null : <span className="muted">, not yet</span>}
          </li>
        ))}
      </ul>
      {gate.reviewSignature?.printedName ? (
        <p className="muted">Reviewed by {gate.reviewSignature.printedName}{gate.reviewSignature.signedAt ? ` on ${formatDateTime(gate.reviewSignature.signedAt)}` : ''}.</p>
      ) : null}

      {gate.status === 'closed' ? (
        gate.footer ? <footer className="record-footer" data-testid="gate-footer">{gate.footer}{gate.closedAt ? <span className="muted">, {formatDate(gate.closedAt)}</span> : null}</footer> : null
      ) : (
        <div className="actions" role="group" aria-label={`Act on the gate: ${title}`}>
          {gate.status === 'open' && gate.viewerCanMarkReady ? (
            <button type="button" disabled={busy} onClick={async () => { const res = await markReady({ id: gate.id! }); after(res, res.data?.markStageGateReady) }}>Mark ready for review</button>
          ) : null}
          {gate.status === 'ready' && gate.viewerCanReview ? (
            <button type="button" disabled={busy} aria-expanded={signing === 'review'} onClick={() => setSigning(signing === 'review' ? 'none' : 'review')}>Review and sign</button>
          ) : null}
          {gate.status === 'reviewed' && gate.viewerCanClose ? (
            <button type="button" disabled={busy} aria-expanded={signing === 'close'} onClick={() => setSigning(signing === 'close' ? 'none' : 'close')}>Close and sign</button>
          ) : null}
          {gate.viewerCannotReason ? <p className="muted" data-testid="gate-not-yours">{gate.viewerCannotReason}</p> : null}
        </div>
      )}

      {signing !== 'none' ? (
        <SignForm
          meaning={signing === 'review'
            ? 'Your signature means: reviewed. You confirm that you reviewed the required records of this gate.'
            : `Your signature means: approved. You approve closing this gate and moving the program to ${gate.nextStage?.name ?? 'the next stage'}.`}
          action={signing === 'review' ? 'Sign the review' : 'Sign and close'}
          intent={`gate:${gate.id}:${signing}`}
          resumed={resumed?.key === `gate:${gate.id}:${signing}` ? resumed : null}
          refusedAsStale={refusedAsStale}
          onSteppedUp={() => setRefusedAsStale(false)}
          busy={busy}
          onCancel={() => setSigning('none')}
          onSign={async (comment) => {
            if (signing === 'review') { const res = await review({ id: gate.id!, comment: comment || null }); after(res, res.data?.reviewStageGate) }
            else { const res = await close({ id: gate.id!, comment: comment || null }); after(res, res.data?.closeStageGate) }
          }}
        />
      ) : null}
      {problem.length ? <div role="alert" className="problem">{problem.map((p, i) => <p key={i}>{p}</p>)}</div> : null}
    </article>
  )
}

interface SignFormProps {
  meaning: string
  action: string
  /** Which signature this is (`gate:<id>:review`), kept while the page goes to the identity provider and back. */
  intent: string
  resumed: { comment: string } | null
  /** The service refused the signature for an old sign-in. */
  refusedAsStale: boolean
  onSteppedUp: () => void
  busy: boolean
  onSign: (comment: string) => void
  onCancel: () => void
}

/**
 * The signature's meaning, shown before the person signs, in an inline form (Escape cancels; never a dialog). A
 * signature needs a recent sign-in (21 CFR 11.200): when the last one is too old the form asks for a fresh one first
 * (the identity provider's sign-in, or in development the person's confirmation), then offers to sign.
 */
function SignForm({ meaning, action, intent, resumed, refusedAsStale, onSteppedUp, busy, onSign, onCancel }: SignFormProps) {
  const id = useId()
  const [comment, setComment] = useState(resumed?.comment ?? '')
  const [stepping, setStepping] = useState(false)
  const [stepProblem, setStepProblem] = useState('')
  const signIn = useSignatureStepUp()
  const needsStepUp = refusedAsStale || !signIn.fresh
  const stepUp = async () => {
    setStepping(true)
    setStepProblem('')
    try {
      await signIn.stepUp({ key: intent, comment })
      onSteppedUp()
    } catch {
      setStepProblem('Signing in again did not work. Try again.')
    } finally {
      setStepping(false)
    }
  }
  return (
    <form className="inline-form" data-testid="sign-form" onSubmit={(e) => { e.preventDefault(); if (!needsStepUp) onSign(asWritten(comment) ?? '') }} onKeyDown={(e) => { if (e.key === 'Escape') onCancel() }}>
      <p id={`${id}-meaning`} data-testid="signature-meaning"><strong>{meaning}</strong></p>
      <label htmlFor={`${id}-comment`}>Comment (optional)</label>
      <textarea id={`${id}-comment`} rows={2} value={comment} onChange={(e) => setComment(e.target.value)} autoFocus />
      {needsStepUp ? (
        <p id={`${id}-fresh`} data-testid="fresh-sign-in">
          {signIn.mode === 'provider'
            ? 'A signature needs a fresh sign-in: your organisation asks for your password again, then you sign here.'
            : 'A signature needs you to confirm who you are. Development has no identity provider, so confirming signs you in again.'}
        </p>
      ) : resumed ? <p role="status">You signed in again. {action} to finish.</p> : null}
      {stepProblem ? <p role="alert" className="problem">{stepProblem}</p> : null}
      <div className="actions">
        {needsStepUp
          ? <button type="button" disabled={busy || stepping} aria-describedby={`${id}-fresh`} onClick={() => void stepUp()}>{signIn.mode === 'provider' ? 'Sign in again to sign' : 'Confirm it is me'}</button>
          : <button type="submit" disabled={busy} aria-describedby={`${id}-meaning`}>{action}</button>}
        <button type="button" className="quiet" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  )
}
