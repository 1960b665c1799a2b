// The run rail: a twin run's steps in the order the twin took them, as the twin panel shows its latest run. Each step
// is the tool in words, when, and how it went; a refusal says why ('budget exhausted for source X, retry after N s'
// when a literature source's budget ran out), and a literature search lists its query policy step by step
// ("Query policy (visible in the run rail)"). The service writes every line in words; the rail shows them as given.
import { useId } from 'react'
import { formatTime } from '../format'

export interface RailStep {
  id: string | null
  toolName: string | null
  at: string | null
  outcome: string | null
  reason?: string | null
  summary?: string | null
  details: string[] | null
}

const OUTCOME: Record<string, string> = { ok: 'done', refused: 'refused', error: 'failed', running: 'under way' }

export function RunRail({ heading, steps, stepCount }: { heading: string; steps: readonly RailStep[]; stepCount: number }) {
  const headingId = useId()
  return (
    <section aria-labelledby={headingId} className="run-rail" data-testid="run-rail">
      <h3 id={headingId}>{heading}</h3>
      {steps.length ? (
        <ol className="lines">
          {steps.map((s, n) => (
            <li key={s.id ?? n} data-outcome={s.outcome ?? undefined}>
              <strong>{s.toolName}</strong> <span className="muted">at {formatTime(s.at)}, {OUTCOME[s.outcome ?? ''] ?? 'done'}</span>
              {s.reason ? <p className={s.outcome === 'ok' ? undefined : 'problem'} data-testid="run-step-reason">{s.reason}</p> : null}
              {s.summary ? <p>{s.summary}</p> : null}
              {s.details?.length ? (
                <ul className="lines" aria-label="Query policy">
                  {s.details.map((d, i) => <li key={i}>{d}</li>)}
                </ul>
              ) : null}
            </li>
          ))}
        </ol>
      ) : <p className="muted">No steps yet.</p>}
      {stepCount > steps.length ? <p className="muted">{stepCount - steps.length} later {stepCount - steps.length === 1 ? 'step is' : 'steps are'} not shown.</p> : null}
    </section>
  )
}
