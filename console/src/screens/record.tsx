// One record (/p/<slug>/records/<id>): the H1 keeps the record's contract name (its title, never relabelled by a
// workbench role); the workbench role the person wears is the subtitle. Then its source system (every surfaced record
// names one), the current version's footer exactly as the API composes it (core/footers.ts), its citations, and every
// version, newest first, each with its own footer.
import { useEffect } from 'react'
import { useQuery } from 'urql'
import { RecordPageDocument } from '../generated/graphql'
import { describeError } from '../api/errors'
import { formatDate, formatDateTime } from '../format'
import { Link } from '../router'
import { recordTypeName } from '../record-types'
import { TrailLine } from '../components/trail-line'
import { RecordDecisions } from '../components/decision-record'

const CHANGE: Record<string, string> = { create: 'Created', update: 'Updated', decide: 'Decided' }
const CITATION_KIND: Record<string, string> = {
  eln_entry: 'Notebook entry',
  literature_cluster: 'Literature',
  document_passage: 'Document passage',
  sop_version: 'Procedure version',
}

export function RecordScreen({ slug, id }: { slug: string; id: string }) {
  const [{ data, fetching, error }] = useQuery({ query: RecordPageDocument, variables: { id, slug } })
  const record = data?.record
  const home = data?.program?.workbench
  useEffect(() => {
    if (record?.title) document.title = record.title
  }, [record?.title])

  if (fetching && !data) return <main id="main" className="page"><p role="status">Loading the record…</p></main>
  if (error && !data) return <main id="main" className="page"><p role="alert" className="problem">{describeError(error)}</p></main>
  if (!record || record.program?.slug !== slug) {
    return (
      <main id="main" className="page">
        <h1>This record is not available</h1>
        <p>It does not exist, or you may not read it in this program.</p>
        <p><Link href={`/p/${encodeURIComponent(slug)}/home`}>Back to the program</Link></p>
      </main>
    )
  }

  return (
    <main id="main" className="page record-page">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={`/p/${encodeURIComponent(slug)}/home`}>{record.program?.name ?? 'Program'}</Link>
      </nav>
      <header className="record-head">
        <h1>{record.title}</h1>
        <p className="subtitle" data-testid="record-subtitle">
          {home?.name ? (home.fallback || !home.workbenchRoleKey ? home.name : `Workbench role: ${home.name}`) : ''}
        </p>
        <p className="muted">
          {recordTypeName(record.recordType)}, version {record.version}
          {record.updatedAt ? `, updated ${formatDate(record.updatedAt)}` : ''}
        </p>
        <p className="muted" data-testid="record-source">
          {record.sourceSystem ? `Source: ${record.sourceSystem}` : 'Source: written in this workspace'}
        </p>
      </header>

      {record.body ? <section aria-labelledby="record-body" className="region"><h2 id="record-body">Content</h2><p className="prose">{record.body}</p></section> : null}

      <section aria-labelledby="record-citations" className="region">
        <h2 id="record-citations">Citations</h2>
        {record.citations?.length ? (
          <ul className="lines">
            {record.citations.map((c, i) => (
              <li key={`${c.ref}-${i}`}>
                {c.title ?? c.ref}
                <span className="muted">, {CITATION_KIND[c.kind ?? ''] ?? 'Source'}{c.locator ? `, ${c.locator}` : ''}{c.sourceSystem ? `, from ${c.sourceSystem}` : ''}</span>
              </li>
            ))}
          </ul>
        ) : <p className="muted">This record cites nothing.</p>}
      </section>

      <section aria-labelledby="record-versions" className="region">
        <h2 id="record-versions">Versions</h2>
        <ol className="versions" reversed>
          {(record.history ?? []).map((v) => (
            <li key={v.version} data-testid="record-version">
              <p>
                <strong>Version {v.version}</strong>: {CHANGE[v.change ?? ''] ?? 'Changed'}
                {v.decidedBy?.name ? ` by ${v.decidedBy.name}` : ''}
                {v.createdAt ? ` on ${formatDateTime(v.createdAt)}` : ''}
              </p>
              {v.title && v.title !== record.title ? <p className="muted">Title then: {v.title}</p> : null}
              {v.note ? <p className="muted">{v.note}</p> : null}
              {v.footer ? <p className="record-footer">{v.footer}</p> : null}
            </li>
          ))}
        </ol>
        <TrailLine programId={record.program?.id} targetId={record.id} />
      </section>

      <RecordDecisions recordId={record.id ?? id} />

      {record.footer ? <footer className="record-footer" data-testid="record-footer">{record.footer}</footer> : null}
    </main>
  )
}
