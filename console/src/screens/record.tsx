// One record (/p/<slug>/records/<id>): the H1 keeps the record's contract name (its title, never relabelled by a
// workbench role); the workbench role the person wears is the subtitle. Then its source system (every surfaced record
// names one), the current version's footer exactly as the API composes it (core/text/footers.ts), its citations, and every
// version, newest first, each with its own footer. Its content (fields, citations, what each version changed) and what
// the person may do to it are components/record-content.tsx.
import { useEffect } from 'react'
import { useQuery } from 'urql'
import { RecordPageDocument } from '../generated/graphql'
import { describeError } from '../api/errors'
import { formatDate } from '../format'
import { RecordActions, RecordCitations, RecordFields, RecordVersions, sourceSystemName } from '../components/record-content'
import { Link } from '../router'
import { recordListHref, recordTypeName } from '../record-types'
import { TrailLine } from '../components/trail-line'
import { RecordDecisions } from '../components/decision-record'


export function RecordScreen({ slug, id }: { slug: string; id: string }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: RecordPageDocument, variables: { id, slug } })
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
        {record.recordType ? <> / <Link href={recordListHref(slug, record.recordType)}>{recordTypeName(record.recordType)}</Link></> : null}
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
          {record.sourceSystem ? `Source: ${sourceSystemName(record.sourceSystem)}` : 'Source: written in this workspace'}
        </p>
      </header>

      <RecordFields record={record} slug={slug} />
      {record.body ? <section aria-labelledby="record-body" className="region"><h2 id="record-body">Content</h2><p className="prose">{record.body}</p></section> : null}
      <RecordActions record={record} onChanged={() => refetch({ requestPolicy: 'network-only' })} />
      <RecordCitations record={record} />
      <RecordVersions record={record} after={<TrailLine programId={record.program?.id} targetId={record.id} />} />
      <RecordDecisions recordId={record.id ?? id} />

      {record.footer ? <footer className="record-footer" data-testid="record-footer">{record.footer}</footer> : null}
    </main>
  )
}
