// The role home (/p/<slug>/home): the workbench role line, then the four regions in the specification's fixed order.
import { useEffect, useRef } from 'react'
import { useQuery } from 'urql'
import { RoleHomeDocument } from '../generated/graphql'
import { WORKBENCH } from '../copy'
import { Rail } from '../components/rail'
import { describeError } from '../api/errors'
import { formatDate } from '../format'
import { WorkbenchRolePicker } from '../components/workbench-role-picker'
import { Inbox } from '../components/inbox'
import { RECONNECTED_EVENT } from '../api/client'
import { MemoryPanel } from '../components/memory-panel'
import { TwinPanel } from '../components/twin-panel'
import { Link, navigate, useLocation } from '../router'
import { ProgramUnavailable } from '../components/program-unavailable'

const [TODAYS_DECISIONS, OPEN_QUESTIONS, EVIDENCE_BOARD, PROGRAM_TERMS] = WORKBENCH.homeRegions

const SOURCE_STATUS: Record<string, string> = { connected: 'connected', not_connected: 'not connected', degraded: 'degraded' }

export function RoleHome({ slug }: { slug: string }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: RoleHomeDocument, variables: { slug } })
  const program = data?.program
  const home = program?.workbench
  // The memory panel's state is the address (?remembers=1): a reload or a shared link opens it again.
  const { pathname, search } = useLocation()
  const remembers = search.get('remembers') === '1'
  const opener = useRef<HTMLButtonElement>(null)
  const wasOpen = useRef(remembers)
  useEffect(() => {
    if (wasOpen.current && !remembers) opener.current?.focus()
    wasOpen.current = remembers
  }, [remembers])
  const setRemembers = (open: boolean) => {
    const next = new URLSearchParams(search)
    if (open) next.set('remembers', '1')
    else next.delete('remembers')
    const query = next.toString()
    navigate(`${pathname}${query ? `?${query}` : ''}`)
  }

  useEffect(() => {
    if (program?.name) document.title = `${program.name}: home`
  }, [program?.name])
  useEffect(() => {
    const again = () => refetch({ requestPolicy: 'network-only' })
    window.addEventListener(RECONNECTED_EVENT, again)
    return () => window.removeEventListener(RECONNECTED_EVENT, again)
  }, [refetch])

  if (fetching && !data) return <main id="main" className="page"><p role="status">Loading the program…</p></main>
  if (error && !data) return <main id="main" className="page"><p role="alert" className="problem">{describeError(error)}</p></main>
  if (!program || !home) {
    return <ProgramUnavailable />
  }

  return (
    <main id="main" className={`page home${remembers ? ' remembering' : ''}`}>
      <header className="home-head">
        <h1>{program.name}</h1>
        {program.illustrative ? <p className="muted">Illustrative demo data</p> : null}
        <p className="home-links">
          <Link href={`/p/${encodeURIComponent(program.slug ?? slug)}/handoffs`}>Hand-offs and delegations</Link>
          <Link href={`/p/${encodeURIComponent(program.slug ?? slug)}/skills`}>Skills</Link>
          {program.oversight?.viewerCanOversee ? <Link href={`/p/${encodeURIComponent(program.slug ?? slug)}/oversight`}>Oversight</Link> : null}
        </p>
        {home.rail ? <Rail slug={program.slug ?? slug} rail={home.rail} /> : null}
        <WorkbenchRolePicker
          programId={program.id!}
          current={home.workbenchRole?.name ?? null}
          currentKey={home.workbenchRoleKey ?? null}
          setBy={home.setBy?.name && home.setBy.at ? { name: home.setBy.name, date: formatDate(home.setBy.at) } : null}
          onChanged={() => refetch({ requestPolicy: 'network-only' })}
        />
      </header>

      <TwinPanel slug={slug} programId={program.id!} />
      <div className="home-tools">
        {program.viewerHasTwinMemory ? (
          <button type="button" className="secondary" ref={opener} aria-expanded={remembers} aria-controls="memory-panel"
            onClick={() => setRemembers(!remembers)}>
            What your twin remembers
          </button>
        ) : null}
        <Link href={`/p/${slug}/stage-gates`} className="tool-link">Stage gates</Link>
      </div>
      {remembers && program.viewerHasTwinMemory ? (
        <MemoryPanel programId={program.id!} rolePlural={plural(home.name ?? 'colleague')} onClose={() => setRemembers(false)} />
      ) : null}

      <section aria-labelledby="region-decisions" className="region">
        <h2 id="region-decisions">{TODAYS_DECISIONS}</h2>
        <Inbox
          programId={program.id!}
          nextPassAt={program.myInboxSummary?.nextPassAt ?? null}
          viewerNotice={Boolean(program.twinPanelNotice)}
          onChanged={() => refetch({ requestPolicy: 'network-only' })}
        />
      </section>

      <section aria-labelledby="region-questions" className="region">
        <h2 id="region-questions">{OPEN_QUESTIONS}</h2>
        <RecordList slug={program.slug ?? slug} records={home.questions ?? []} empty="No open questions." />
      </section>

      <section aria-labelledby="region-board" className="region">
        <h2 id="region-board">{EVIDENCE_BOARD}</h2>
        <RecordList slug={program.slug ?? slug} records={home.pins ?? []} empty="Nothing on the board yet." />
      </section>

      <section aria-labelledby="region-terms" className="region">
        <h2 id="region-terms">{PROGRAM_TERMS}</h2>
        {(home.statusLines ?? []).length ? (
          <ul className="lines">
            {home.statusLines!.map((line, i) => (
              <li key={i}>{line.text}{line.asOf ? <span className="muted">, as of {formatDate(line.asOf)}</span> : null}</li>
            ))}
          </ul>
        ) : <p className="muted">Nothing to report yet.</p>}
        {(home.sources ?? []).length ? (
          <>
            <h3>Sources</h3>
            <ul className="lines">
              {home.sources!.map((s) => (
                <li key={s.provider ?? s.displayName}>
                  {s.displayName}: <span className={`tone-${s.status}`}>{SOURCE_STATUS[s.status ?? ''] ?? 'not connected'}</span>
                  {s.verifiedOn ? <span className="muted">, checked {formatDate(s.verifiedOn)}</span> : null}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
    </main>
  )
}

function RecordList({ slug, records, empty }: { slug: string; records: { id: string | null; title: string | null; updatedAt: string | null }[]; empty: string }) {
  if (!records.length) return <p className="muted">{empty}</p>
  return (
    <ul className="lines">
      {records.map((r) => (
        <li key={r.id}><Link href={`/p/${encodeURIComponent(slug)}/records/${encodeURIComponent(r.id ?? '')}`}>{r.title}</Link>{r.updatedAt ? <span className="muted">, updated {formatDate(r.updatedAt)}</span> : null}</li>
      ))}
    </ul>
  )
}

/** 'Shared by <role plural>': the workbench role's (or persona's) name in the plural, in lower case after 'by'. */
function plural(name: string): string {
  const lower = /^[A-Z][a-z]/.test(name) ? name.charAt(0).toLowerCase() + name.slice(1) : name
  if (/(s|sh|ch|x)$/.test(lower)) return `${lower}es`
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`
  return `${lower}s`
}
