// A program's records of one area (/p/<slug>/evidence, /plans, /progress, /review: the rail's entries): the area's
// record types the person may read, one type at a time, filtered by status and by words in the title or the body, in
// pages of 20 (cursor pages: 'Next page' carries the cursor in the address, so a reload or a shared link keeps it).
import { useEffect, useId, useState, type FormEvent } from 'react'
import { useQuery } from 'urql'
import { RecordAreaDocument, RecordListPageDocument } from '../generated/graphql'
import { describeError } from '../api/errors'
import { formatDate } from '../format'
import { Link, navigate, useLocation } from '../router'
import { recordListHref } from '../record-types'
import { ProgramUnavailable } from '../components/program-unavailable'

export const AREAS: Record<string, string> = { evidence: 'Evidence', plans: 'Plans', progress: 'Progress', review: 'Review' }

export function RecordListScreen({ slug, product }: { slug: string; product: string }) {
  const { search } = useLocation()
  const [{ data, fetching, error }] = useQuery({ query: RecordAreaDocument, variables: { slug, product } })
  const program = data?.program
  const types = program?.recordTypes ?? []
  const type = types.find((t) => t.key === search.get('type')) ?? types[0]
  const area = AREAS[product] ?? 'Records'
  useEffect(() => { if (program?.name) document.title = `${program.name}: ${area}` }, [program?.name, area])

  if (fetching && !data) return <main id="main" className="page"><p role="status">Loading the records…</p></main>
  if (error && !data) return <main id="main" className="page"><p role="alert" className="problem">{describeError(error)}</p></main>
  if (!program) {
    return <ProgramUnavailable />
  }
  return (
    <main id="main" className="page record-list">
      <nav aria-label="Breadcrumb" className="crumbs"><Link href={`/p/${encodeURIComponent(slug)}/home`}>{program.name}</Link></nav>
      <h1>{area}</h1>
      {!type ? <p className="muted" data-testid="no-record-types">You may not read records of this area in this program.</p> : (
        <>
          <nav aria-label={`${area}: kinds of record`} className="type-tabs">
            <ul>
              {types.map((t) => (
                <li key={t.key}>
                  <Link href={recordListHref(slug, t.key!)} aria-current={t.key === type.key ? 'page' : undefined}>{t.name}</Link>
                </li>
              ))}
            </ul>
          </nav>
          <Records slug={slug} typeKey={type.key!} typeName={type.name ?? ''} statuses={type.statuses ?? []} />
        </>
      )}
    </main>
  )
}

function Records({ slug, typeKey, typeName, statuses }: { slug: string; typeKey: string; typeName: string; statuses: { key: string | null; label: string | null }[] }) {
  const id = useId()
  const { search } = useLocation()
  const status = statuses.some((s) => s.key === search.get('status')) ? search.get('status') : null
  const words = search.get('q') ?? ''
  const after = search.get('after')
  const [draft, setDraft] = useState({ status: status ?? '', q: words })
  useEffect(() => setDraft({ status: status ?? '', q: words }), [status, words, typeKey])
  const [{ data, fetching, error }] = useQuery({
    query: RecordListPageDocument,
    variables: { slug, type: typeKey, status, search: words || null, after },
  })
  const page = data?.program?.records
  const apply = (e: FormEvent) => {
    e.preventDefault()
    navigate(recordListHref(slug, typeKey, { ...(draft.status ? { status: draft.status } : {}), ...(draft.q.trim() ? { q: draft.q.trim() } : {}) }))
  }
  const filters = { ...(status ? { status } : {}), ...(words ? { q: words } : {}) }
  return (
    <section aria-labelledby={`${id}-h`} className="region">
      <h2 id={`${id}-h`}>{typeName}</h2>
      <form className="filters" role="search" aria-label={`Find ${typeName.toLowerCase()}`} onSubmit={apply}>
        <div>
          <label htmlFor={`${id}-status`}>Status</label>
          <select id={`${id}-status`} value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
            <option value="">Any status</option>
            {statuses.map((s) => <option key={s.key} value={s.key ?? ''}>{s.label}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-q`}>Words in the title or the text</label>
          <input id={`${id}-q`} type="search" value={draft.q} maxLength={200} onChange={(e) => setDraft({ ...draft, q: e.target.value })} />
        </div>
        <div className="filters-go"><button type="submit">Show</button></div>
      </form>
      {error && !data ? <p role="alert" className="problem">{describeError(error)}</p>
        : fetching && !data ? <p role="status">Loading…</p>
          : !page?.nodes?.length ? <p className="muted" data-testid="records-empty">{status || words ? 'No record matches.' : `No ${typeName.toLowerCase()} yet.`}</p>
            : (
              <ul className="record-rows" data-testid="record-rows">
                {page.nodes.map((r) => (
                  <li key={r.id}>
                    <Link href={`/p/${encodeURIComponent(slug)}/records/${encodeURIComponent(r.id ?? '')}`}>{r.title}</Link>
                    <span className="muted">, {r.statusLabel}{r.updatedAt ? `, updated ${formatDate(r.updatedAt)}` : ''}</span>
                  </li>
                ))}
              </ul>
            )}
      {after || page?.pageInfo?.hasNextPage ? (
        <nav aria-label="Pages" className="pager">
          {after ? <Link href={recordListHref(slug, typeKey, filters)}>First page</Link> : null}
          {page?.pageInfo?.hasNextPage && page.pageInfo.endCursor ? <Link href={recordListHref(slug, typeKey, { ...filters, after: page.pageInfo.endCursor })}>Next page</Link> : null}
        </nav>
      ) : null}
    </section>
  )
}
