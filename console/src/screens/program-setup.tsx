// The program's setup (/p/<slug>/setup: the rail's Setup, offered under 'More' to whoever may change it): its current
// stage and the settings the service reads, in words, with the way to its stage gates.
import { useEffect } from 'react'
import { useQuery } from 'urql'
import { ProgramSetupDocument } from '../generated/graphql'
import { describeError } from '../api/errors'
import { Link } from '../router'
import { ProgramUnavailable } from '../components/program-unavailable'

export function ProgramSetup({ slug }: { slug: string }) {
  const [{ data, fetching, error }] = useQuery({ query: ProgramSetupDocument, variables: { slug } })
  const program = data?.program
  useEffect(() => { if (program?.name) document.title = `${program.name}: setup` }, [program?.name])
  if (fetching && !data) return <main id="main" className="page"><p role="status">Loading the program…</p></main>
  if (error && !data) return <main id="main" className="page"><p role="alert" className="problem">{describeError(error)}</p></main>
  if (!program) return <ProgramUnavailable />
  const settings = (program.settings ?? {}) as Record<string, unknown>
  const given = (v: unknown, unit = '') => (v === undefined || v === null ? 'Not set' : `${String(v)}${unit}`)
  return (
    <main id="main" className="page">
      <nav aria-label="Breadcrumb" className="crumbs"><Link href={`/p/${encodeURIComponent(slug)}/home`}>{program.name}</Link></nav>
      <h1>Setup</h1>
      <section aria-labelledby="setup-program" className="region">
        <h2 id="setup-program">This program</h2>
        <dl className="fields" data-testid="program-setup">
          <div><dt>Current stage</dt><dd>{program.currentStage?.name ?? 'Not set'}</dd></div>
          <div><dt>Days before an unanswered decision is escalated</dt><dd>{given(settings.escalation_days)}</dd></div>
          <div><dt>Literature searches a twin may run in one turn</dt><dd>{given(settings.evidence_query_budget)}</dd></div>
          <div><dt>Tag of the milestones a stage gate needs</dt><dd>{given(settings.gate_critical_milestone_tag)}</dd></div>
        </dl>
        <p><Link href={`/p/${encodeURIComponent(slug)}/stage-gates`}>Stage gates</Link></p>
      </section>
    </main>
  )
}
