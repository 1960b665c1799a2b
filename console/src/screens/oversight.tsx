// The oversight screen of a program (/p/<slug>/oversight) for leads, owners and quality reviewers: each twin with what
// its proposals became over the last 7 days and its configuration, the program board, decision metrics per persona,
// the QA oversight summaries, and the program's twin defaults. Each part is shown only under the permission the API
// checks for it (Program.oversight); pausing someone's twin and the defaults take a reason.
import { useEffect, useId, useState, type FormEvent } from 'react'
import { useMutation, useQuery } from 'urql'
import { MeDocument, OversightAccessDocument, OversightDocument, PauseTwinWithReasonDocument, ResumeTwinDocument, SetProgramTwinDefaultsDocument } from '../generated/graphql'
import { describeError, typedErrorMessage } from '../api/errors'
import { Link } from '../router'
import { formatDate, formatDateTime, asWritten } from '../format'
import { dutyName } from '../duty-names'
import { ProgramUnavailable } from '../components/program-unavailable'

const PERSONA: Record<string, string> = {
  program_owner: 'Program owner', program_lead: 'Program lead', scientist: 'Scientist', quality_reviewer: 'Quality reviewer',
  manufacturing_specialist: 'Manufacturing specialist', viewer: 'Viewer',
}
const personaName = (key: string | null | undefined) => (key && PERSONA[key]) ?? 'Member'
const STATUS: Record<string, string> = { active: 'Active', paused: 'Paused', retired: 'Retired' }
const BOARD_KIND: Record<string, string> = { decision: 'Decision waiting', handoff: 'Hand-off', twin: 'Twin' }
const BOARD_STATUS: Record<string, string> = { open: 'open', snoozed: 'snoozed', sent: 'sent', accepted: 'accepted', active: 'active', paused: 'paused', retired: 'retired' }
const count = (n: number | null | undefined, one: string, many = `${one}s`) => `${n ?? 0} ${(n ?? 0) === 1 ? one : many}`

export function Oversight({ slug }: { slug: string }) {
  const [access] = useQuery({ query: OversightAccessDocument, variables: { slug } })
  const program = access.data?.program
  const can = program?.oversight
  useEffect(() => { if (program?.name) document.title = `${program.name}: oversight` }, [program?.name])
  if (access.error && !access.data) return <main id="main" className="page"><p role="alert" className="problem">{describeError(access.error)}</p></main>
  if (!access.data) return <main id="main" className="page"><p role="status">Loading…</p></main>
  if (!program?.id) {
    return <ProgramUnavailable />
  }
  const crumbs = <nav aria-label="Breadcrumb" className="crumbs"><Link href={`/p/${encodeURIComponent(program.slug ?? slug)}/home`}>{program.name}</Link></nav>
  if (!can?.viewerCanOversee) {
    return (
      <main id="main" className="page">
        {crumbs}
        <h1>Oversight</h1>
        <p data-testid="oversight-not-permitted">Oversight is for the program's owner, lead and quality reviewer; you take part in this program as someone else.</p>
      </main>
    )
  }
  return (
    <main id="main" className="page oversight">
      {crumbs}
      <h1>Oversight</h1>
      <OversightParts programId={program.id} settings={program.settings} can={can} />
    </main>
  )
}

type Can = { viewerCanReadTwins?: boolean | null; viewerCanManageTwins?: boolean | null; viewerCanReadAudit?: boolean | null }

function OversightParts({ programId, settings, can }: { programId: string; settings: unknown; can: Can }) {
  const twins = !!can.viewerCanReadTwins
  const audit = !!can.viewerCanReadAudit
  const [{ data, error }, refetch] = useQuery({ query: OversightDocument, variables: { programId, twins, audit }, requestPolicy: 'cache-and-network' })
  const [me] = useQuery({ query: MeDocument })
  const reload = () => refetch({ requestPolicy: 'network-only' })
  if (error && !data) return <p role="alert" className="problem">{describeError(error)}</p>
  if (!data) return <p role="status">Loading…</p>
  return (
    <>
      {twins ? <TwinsPart twins={data.twins?.nodes ?? []} manage={!!can.viewerCanManageTwins} myUserId={me.data?.me?.user?.id ?? null} onChanged={reload} /> : null}
      {twins ? <BoardPart items={data.board?.nodes ?? []} /> : null}
      {audit ? <MetricsPart metrics={data.decisionMetrics ?? null} /> : null}
      {audit ? <QaSummariesPart reviews={data.reviewAuditReviews ?? []} /> : null}
      {can.viewerCanManageTwins ? <DefaultsPart programId={programId} settings={settings} /> : null}
    </>
  )
}

type TwinRow = NonNullable<NonNullable<import('../generated/graphql').OversightQuery['twins']>['nodes']>[number]

function TwinsPart({ twins, manage, myUserId, onChanged }: { twins: TwinRow[]; manage: boolean; myUserId: string | null; onChanged: () => void }) {
  const id = useId()
  return (
    <section aria-labelledby={`${id}-h`} className="region" data-testid="oversight-twins">
      <h2 id={`${id}-h`}>Twins</h2>
      <p className="muted">What each twin's proposals became over the last 7 days, and how it is set up. Per twin, never a rating of its person.</p>
      {twins.length ? (
        <ul className="cards">
          {twins.map((t) => <TwinCard key={t.id} twin={t} manage={manage} mine={!!myUserId && t.user?.id === myUserId} onChanged={onChanged} />)}
        </ul>
      ) : <p>No twin in this program yet.</p>}
    </section>
  )
}

function TwinCard({ twin, manage, mine, onChanged }: { twin: TwinRow; manage: boolean; mine: boolean; onChanged: () => void }) {
  const id = useId()
  const [reason, setReason] = useState('')
  const [problem, setProblem] = useState('')
  const [asking, setAsking] = useState(false)
  const [{ fetching: pausing }, pause] = useMutation(PauseTwinWithReasonDocument)
  const [{ fetching: resuming }, resume] = useMutation(ResumeTwinDocument)
  const e = twin.evaluation
  const who = twin.user?.name ?? 'Someone'
  const doPause = async (ev: FormEvent) => {
    ev.preventDefault()
    setProblem('')
    const res = await pause({ id: twin.id!, reason: mine ? null : asWritten(reason) })
    if (res.error) return setProblem(describeError(res.error) ?? '')
    const out = res.data?.pauseTwin
    if (out?.__typename === 'MutationPauseTwinSuccess') { setAsking(false); setReason(''); return onChanged() }
    setProblem(typedErrorMessage(out))
  }
  const doResume = async () => {
    setProblem('')
    const res = await resume({ id: twin.id! })
    if (res.error) return setProblem(describeError(res.error) ?? '')
    const out = res.data?.resumeTwin
    if (out?.__typename === 'MutationResumeTwinSuccess') return onChanged()
    setProblem(typedErrorMessage(out))
  }
  return (
    <li className="card" data-testid="oversight-twin" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{mine ? 'Your twin' : `${who}'s twin`} <span className="muted">({personaName(twin.personaKey)})</span></h3>
      <p data-testid="oversight-twin-status">{STATUS[twin.status ?? ''] ?? 'Unknown'}{twin.status === 'paused' ? (twin.pausedReason === 'manage' ? ', by a manager' : twin.pausedReason === 'budget' ? ', its budget is used up' : twin.pausedReason === 'user' ? `, by ${mine ? 'you' : who}` : '') : ''}.</p>
      <dl className="facts">
        <div><dt>Duties</dt><dd>{(twin.duties ?? []).map(dutyName).join(', ') || 'none'}</dd></div>
        <div><dt>Tool call budget</dt><dd>{(twin.budgetToolCallsMonth ?? 0).toLocaleString('en-GB')} calls a month</dd></div>
        <div><dt>Spending budget</dt><dd>{twin.budgetUsdMonth == null ? 'none set' : `US$${twin.budgetUsdMonth} a month`}</dd></div>
        <div><dt>Proposals wait</dt><dd>{count(twin.expiryHours, 'hour')} before they expire</dd></div>
      </dl>
      {e ? (
        <p data-testid="oversight-evaluation">
          Last 7 days: {count(e.filed, 'proposal')} filed, {e.approvedUnchanged ?? 0} approved unchanged, {e.edited ?? 0} approved with edits,{' '}
          {e.declined ?? 0} declined, {e.expired ?? 0} expired, {count(e.refused, 'refused call')}.
        </p>
      ) : null}
      {twin.status === 'active' && (mine || manage) ? (
        asking ? (
          <form className="stack" onSubmit={doPause} aria-label={`Pause ${mine ? 'your twin' : `${who}'s twin`}`}>
            {mine ? null : (
              <div className="field">
                <label htmlFor={`${id}-reason`}>Why you pause it ({who} is told)</label>
                <textarea id={`${id}-reason`} rows={2} value={reason} onChange={(ev) => setReason(ev.target.value)} />
              </div>
            )}
            <div className="actions">
              <button type="submit" disabled={pausing}>Pause the twin</button>
              <button type="button" className="secondary" onClick={() => { setAsking(false); setProblem('') }}>Keep it running</button>
            </div>
          </form>
        ) : <div className="actions"><button type="button" className="secondary" onClick={() => setAsking(true)}>Pause…</button></div>
      ) : null}
      {twin.status === 'paused' && mine ? <div className="actions"><button type="button" disabled={resuming} onClick={() => void doResume()}>Resume</button></div> : null}
      {twin.status === 'paused' && !mine ? <p className="muted">Only {who} can resume it.</p> : null}
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
    </li>
  )
}

type BoardRow = NonNullable<NonNullable<import('../generated/graphql').OversightQuery['board']>['nodes']>[number]

function BoardPart({ items }: { items: BoardRow[] }) {
  const id = useId()
  return (
    <section aria-labelledby={`${id}-h`} className="region" data-testid="oversight-board">
      <h2 id={`${id}-h`}>Program board</h2>
      {items.length ? (
        <ul className="lines">
          {items.map((b) => (
            <li key={`${b.kind}-${b.id}`}>
              <span className="label">{BOARD_KIND[b.kind ?? ''] ?? 'Item'}</span> {b.kind === 'twin' ? `${personaName(b.personaKey)}'s twin` : b.title}
              <span className="muted">
                {' '}— {b.user?.name ?? personaName(b.personaKey)}{b.status ? `, ${BOARD_STATUS[b.status] ?? b.status.replace(/_/g, ' ')}` : ''}
                {b.dueAt ? `, due ${formatDateTime(b.dueAt)}` : ''}
              </span>
            </li>
          ))}
        </ul>
      ) : <p>Nothing open on the board.</p>}
    </section>
  )
}

type Metrics = import('../generated/graphql').OversightQuery['decisionMetrics']

function MetricsPart({ metrics }: { metrics: Metrics }) {
  const id = useId()
  const rows = metrics?.perPersona ?? []
  return (
    <section aria-labelledby={`${id}-h`} className="region" data-testid="oversight-metrics">
      <h2 id={`${id}-h`}>Decision metrics</h2>
      {metrics?.since ? <p className="muted">What twin proposals became from {formatDate(metrics.since)} to {formatDate(metrics.until ?? new Date().toISOString())}, per persona.</p> : null}
      {rows.length ? (
        <div className="table-scroll">
          <table className="parameters">
            <caption>Proposals by persona</caption>
            <thead><tr><th scope="col">Persona</th><th scope="col">Filed</th><th scope="col">Approved unchanged</th><th scope="col">Approved with edits</th><th scope="col">Declined</th><th scope="col">Expired</th></tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.personaKey}><th scope="row">{personaName(r.personaKey)}</th><td>{r.filed}</td><td>{r.approvedUnchanged}</td><td>{r.edited}</td><td>{r.declined}</td><td>{r.expired}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : <p>No twin proposal in this period.</p>}
    </section>
  )
}

type Review = NonNullable<import('../generated/graphql').OversightQuery['reviewAuditReviews']>[number]

function QaSummariesPart({ reviews }: { reviews: Review[] }) {
  const id = useId()
  return (
    <section aria-labelledby={`${id}-h`} className="region" data-testid="oversight-qa">
      <h2 id={`${id}-h`}>QA oversight summaries</h2>
      {reviews.length ? (
        <ul className="lines">
          {reviews.map((r) => {
            const actions = ((r.summary as { actions?: Record<string, { count?: number }> } | null)?.actions) ?? {}
            const total = Object.values(actions).reduce((n, a) => n + (typeof a?.count === 'number' ? a.count : 0), 0)
            return (
              <li key={r.id}>
                {formatDate(r.periodStart)} to {formatDate(r.periodEnd)}: {count(total, 'recorded action')}.{' '}
                <span className="muted">{r.acceptedAt ? `Accepted by ${r.acceptedBy?.name ?? 'a quality reviewer'} on ${formatDate(r.acceptedAt)}.` : 'Not accepted yet.'}</span>
              </li>
            )
          })}
        </ul>
      ) : <p>No summary yet.</p>}
    </section>
  )
}

const DEFAULT_DUTIES = ['blocker_scan', 'pre_read', 'twin_literature_watch']

function DefaultsPart({ programId, settings }: { programId: string; settings: unknown }) {
  const id = useId()
  const current = ((settings as { twin_defaults?: Record<string, unknown> } | null)?.twin_defaults ?? {}) as {
    duties?: string[]; budget_tool_calls_month?: number; budget_usd_month?: number | null; expiry_hours?: number
  }
  const [duties, setDuties] = useState<string[]>(current.duties ?? [])
  const [calls, setCalls] = useState(current.budget_tool_calls_month != null ? String(current.budget_tool_calls_month) : '')
  const [usd, setUsd] = useState(current.budget_usd_month != null ? String(current.budget_usd_month) : '')
  const [expiry, setExpiry] = useState(current.expiry_hours != null ? String(current.expiry_hours) : '')
  const [reason, setReason] = useState('')
  const [problem, setProblem] = useState<{ field: string; text: string } | null>(null)
  const [saved, setSaved] = useState(false)
  const [{ fetching }, save] = useMutation(SetProgramTwinDefaultsDocument)
  const number = (s: string) => (s.trim() === '' ? undefined : Number(s.trim()))
  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setProblem(null); setSaved(false)
    const defaults: Record<string, unknown> = { duties }
    for (const [key, label, value] of [['budget_tool_calls_month', 'tool call budget', calls], ['budget_usd_month', 'spending budget', usd], ['expiry_hours', 'hours a proposal waits', expiry]] as const) {
      const n = number(value)
      if (n !== undefined && !Number.isFinite(n)) return setProblem({ field: key, text: `Enter the ${label} as a number.` })
      if (n !== undefined) defaults[key] = n
    }
    const res = await save({ programId, defaults, reason: asWritten(reason) })
    if (res.error) return setProblem({ field: '', text: describeError(res.error) ?? '' })
    const out = res.data?.setProgramTwinDefaults
    if (out?.__typename === 'MutationSetProgramTwinDefaultsSuccess') { setReason(''); return setSaved(true) }
    const field = out && 'field' in out && out.field ? String(out.field).replace(/^defaults\./, '').replace(/\.\d+$/, '') : ''
    setProblem({ field, text: typedErrorMessage(out) })
  }
  const err = (field: string) => (problem && problem.field === field ? problem.text : '')
  const fieldError = (field: string) => err(field) ? <p id={`${id}-${field}-e`} className="problem field-error" role="alert">{err(field)}</p> : null
  return (
    <section aria-labelledby={`${id}-h`} className="region" data-testid="oversight-defaults">
      <h2 id={`${id}-h`}>Twin defaults for this program</h2>
      <p className="muted">A new twin in this program starts with these; twins already running keep their own.</p>
      <form className="stack" onSubmit={submit}>
        <fieldset className="unit-row">
          <legend>Duties</legend>
          {[...new Set([...DEFAULT_DUTIES, ...duties])].map((d) => (
            <label key={d} className="check">
              <input type="checkbox" checked={duties.includes(d)} onChange={(e) => setDuties((x) => (e.target.checked ? [...x, d] : x.filter((y) => y !== d)))} /> {dutyName(d)}
            </label>
          ))}
        </fieldset>
        {fieldError('duties')}
        <div className="unit-row">
          <div className="field">
            <label htmlFor={`${id}-calls`}>Tool calls a month</label>
            <input id={`${id}-calls`} inputMode="numeric" value={calls} aria-describedby={err('budget_tool_calls_month') ? `${id}-budget_tool_calls_month-e` : undefined} onChange={(e) => setCalls(e.target.value)} />
            {fieldError('budget_tool_calls_month')}
          </div>
          <div className="field">
            <label htmlFor={`${id}-usd`}>Spending a month (US$)</label>
            <input id={`${id}-usd`} inputMode="decimal" value={usd} aria-describedby={err('budget_usd_month') ? `${id}-budget_usd_month-e` : undefined} onChange={(e) => setUsd(e.target.value)} />
            {fieldError('budget_usd_month')}
          </div>
          <div className="field">
            <label htmlFor={`${id}-expiry`}>Hours a proposal waits</label>
            <input id={`${id}-expiry`} inputMode="numeric" value={expiry} aria-describedby={err('expiry_hours') ? `${id}-expiry_hours-e` : undefined} onChange={(e) => setExpiry(e.target.value)} />
            {fieldError('expiry_hours')}
          </div>
        </div>
        <div className="field">
          <label htmlFor={`${id}-reason`}>Why you change them (recorded)</label>
          <textarea id={`${id}-reason`} rows={2} value={reason} aria-describedby={err('reason') ? `${id}-reason-e` : undefined} onChange={(e) => setReason(e.target.value)} />
          {fieldError('reason')}
        </div>
        <div className="actions"><button type="submit" disabled={fetching}>Save the defaults</button></div>
        {problem && !['duties', 'budget_tool_calls_month', 'budget_usd_month', 'expiry_hours', 'reason'].includes(problem.field) ? <p role="alert" className="problem">{problem.text}</p> : null}
        {saved ? <p role="status" data-testid="defaults-saved">Saved. New twins in this program start with these.</p> : null}
      </form>
    </section>
  )
}
