// The twin panel on the role home: the person's twin in this program, whether it runs and when it passes next, pause,
// resume and run now, its latest run step by step (the run rail, run-rail.tsx), and the standing plans it runs under.
// A viewer has no twin and reads the document's line.
import { useEffect, useId, useState } from 'react'
import { useMutation, useQuery, useSubscription } from 'urql'
import {
  PauseTwinDocument, ResumeTwinDocument, RunTwinNowDocument, TwinPanelDocument, TwinRunUpdatedDocument,
} from '../generated/graphql'
import { FIXED_PHRASES, TWINS } from '../copy'
import { describeError, typedErrorMessage } from '../api/errors'
import { RECONNECTED_EVENT } from '../api/client'
import { formatDate, formatDateTime, formatTime, withReadableDates } from '../format'
import { dutyName } from '../duty-names'
import { RunRail } from './run-rail'


const RUN_STATUS: Record<string, string> = {
  queued: 'Waiting to start', running: 'Running', interrupted: 'Waiting for you', succeeded: 'Finished', failed: 'Stopped with a problem', cancelled: 'Cancelled',
}

export function TwinPanel({ slug, programId }: { slug: string; programId: string }) {
  const headingId = useId()
  const [{ data, error }, refetch] = useQuery({ query: TwinPanelDocument, variables: { slug }, requestPolicy: 'cache-and-network' })
  const [problem, setProblem] = useState('')
  const [lastRun, setLastRun] = useState<{ id: string; status: string; footer: string | null; summary: string | null } | null>(null)
  const [{ fetching: pausing }, pause] = useMutation(PauseTwinDocument)
  const [{ fetching: resuming }, resume] = useMutation(ResumeTwinDocument)
  const [{ fetching: starting }, runNow] = useMutation(RunTwinNowDocument)
  const program = data?.program
  const twin = program?.workbench?.twin

  const reload = () => refetch({ requestPolicy: 'network-only' })
  useSubscription({ query: TwinRunUpdatedDocument, variables: { programId }, pause: !twin?.id }, (_prev, event) => {
    const run = event.twinRunUpdated
    if (run?.id && run.twin?.id === twin?.id) {
      setLastRun((r) => (r && r.id === run.id ? { id: run.id, status: run.status ?? r.status, footer: run.footer ?? r.footer, summary: run.summary ?? r.summary } : r))
      reload()
    }
    return event
  })
  useEffect(() => {
    window.addEventListener(RECONNECTED_EVENT, reload)
    return () => window.removeEventListener(RECONNECTED_EVENT, reload)
  })

  const act = async (what: 'pause' | 'resume' | 'run') => {
    if (!twin?.id) return
    setProblem('')
    if (what === 'run') {
      const res = await runNow({ id: twin.id })
      const out = res.data?.runTwinNow
      if (res.error) return setProblem(describeError(res.error) ?? '')
      if (out?.__typename === 'MutationRunTwinNowSuccess') return setLastRun({ id: out.run.id!, status: out.run.status ?? 'queued', footer: out.run.footer ?? null, summary: out.run.summary ?? null })
      return setProblem(typedErrorMessage(out))
    }
    const res = what === 'pause' ? await pause({ id: twin.id }) : await resume({ id: twin.id })
    const out = what === 'pause' ? (res.data as { pauseTwin?: { __typename: string; message?: string } } | undefined)?.pauseTwin
      : (res.data as { resumeTwin?: { __typename: string; message?: string } } | undefined)?.resumeTwin
    if (res.error) return setProblem(describeError(res.error) ?? '')
    if (out?.__typename.endsWith('Success')) return reload()
    setProblem(typedErrorMessage(out))
  }

  let body
  if (error && !data) body = <p role="alert" className="problem">{describeError(error)}</p>
  else if (!data) body = <p role="status">Loading…</p>
  else if (program?.twinPanelNotice) body = <p data-testid="twin-status">{TWINS.viewersHaveNoTwin}</p>
  else if (!twin) body = <p className="muted" data-testid="twin-status">You have no twin in this program yet.</p>
  else {
    const paused = twin.status === 'paused'
    const retired = twin.status === 'retired'
    const nextPass = program?.myInboxSummary?.nextPassAt
    const busy = pausing || resuming || starting
    // The run rail follows the twin's latest run; the live run events above refetch it.
    const latest = twin.runs?.nodes?.[0]
    body = (
      <>
        <p data-testid="twin-status" role="status">
          {paused ? FIXED_PHRASES.paused
            : retired ? `Retired${twin.retiredAt ? ` on ${formatDate(twin.retiredAt)}` : ''}.`
            : `Active. ${nextPass ? `Next pass at ${formatTime(nextPass)}.` : 'No pass is scheduled.'}`}
        </p>
        <p className="muted">{TWINS.twinProposesYouDecide} {TWINS.twinNeverApproves}</p>
        {!retired ? (
          <div className="actions" role="group" aria-label="Your twin">
            {paused
              ? <button type="button" disabled={busy} onClick={() => void act('resume')}>Resume</button>
              : <>
                  <button type="button" disabled={busy} onClick={() => void act('run')}>Run now</button>
                  <button type="button" className="secondary" disabled={busy} onClick={() => void act('pause')}>Pause</button>
                </>}
          </div>
        ) : null}
        {lastRun ? (
          <p className="muted" data-testid="twin-run">
            {RUN_STATUS[lastRun.status] ?? 'Started'}{lastRun.footer ? `: ${withReadableDates(lastRun.footer)}` : ''}
          </p>
        ) : null}
        {lastRun?.summary ? <p role="status" data-testid="twin-run-summary">{lastRun.summary}</p> : null}
        {latest ? (
          <RunRail
            heading={`Latest run: ${(RUN_STATUS[latest.status ?? ''] ?? 'Started').toLowerCase()}`}
            steps={latest.steps ?? []}
            stepCount={latest.stepCount ?? 0}
          />
        ) : null}
        <h3>Standing plan</h3>
        {(twin.triggers ?? []).length ? (
          <ul className="lines" data-testid="standing-plan">
            {twin.triggers!.map((t) => (
              <li key={t.id}>
                {dutyName(t.dutyKey)}, {t.kind === 'schedule' ? 'on a schedule' : t.kind === 'event' ? 'when the program changes' : 'when asked'}
                {t.enabled === false ? ' (off)' : ''}
                {t.schedule?.nextRunAt && !paused ? <span className="muted">, next at {formatDateTime(t.schedule.nextRunAt)}</span> : null}
                <br />
                <span className="muted">
                  {t.standingPlanApprovedAt ? `Approved on ${formatDate(t.standingPlanApprovedAt)}` : 'Not approved yet'}
                  {t.standingPlanHash ? `, plan ${t.standingPlanHash.slice(0, 8)}` : ''}
                </span>
              </li>
            ))}
          </ul>
        ) : <p className="muted">No standing plan yet.</p>}
      </>
    )
  }

  return (
    <aside aria-labelledby={headingId} className="twin-panel" data-testid="twin-panel">
      <h2 id={headingId}>Your twin</h2>
      {body}
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
    </aside>
  )
}
