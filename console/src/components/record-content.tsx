// A record's content on its page: its fields with their labels (a linked record and a source as links), its
// citations resolved to what they name (with a link where the source has one), what each version changed, and the
// transitions the person may apply (only the ones the API says are theirs: viewerOutcomes).
import { useId, useState, type FormEvent, type ReactNode } from 'react'
import { useMutation } from 'urql'
import { DecideRecordDocument, type RecordPageQuery } from '../generated/graphql'
import { describeError, typedErrorMessage } from '../api/errors'
import { formatDateTime, withReadableDates, asWritten } from '../format'
import { Link } from '../router'

type Rec = NonNullable<RecordPageQuery['record']>

const CITATION_KIND: Record<string, string> = {
  eln_entry: 'Notebook entry',
  literature_cluster: 'Literature',
  document_passage: 'Document passage',
  sop_version: 'Procedure version',
}
const SOURCE_SYSTEM: Record<string, string> = { eln_provider: 'the notebook', qms_provider: 'the quality system', literature_search: 'literature search' }
/** Where a source lives, in words (a connector's key never reaches the screen). */
export const sourceSystemName = (system: string) => SOURCE_SYSTEM[system] ?? 'a connected system'

const CHANGE: Record<string, string> = { create: 'Created', update: 'Updated', decide: 'Decided' }

const recordHref = (slug: string, id: string) => `/p/${encodeURIComponent(slug)}/records/${encodeURIComponent(id)}`

/** A link that leaves the console (a notebook entry, a DOI): opened as a plain link, never with a script. */
function Outside({ href, children }: { href: string; children: string }) {
  return <a href={href} rel="noopener noreferrer">{children}</a>
}

export function RecordFields({ record, slug }: { record: Rec; slug: string }) {
  const fields = record.content ?? []
  return (
    <section aria-labelledby="record-fields" className="region">
      <h2 id="record-fields">Details</h2>
      <dl className="fields" data-testid="record-fields">
        <div><dt>Status</dt><dd>{record.statusLabel}</dd></div>
        {fields.map((f) => (
          <div key={f.name}>
            <dt>{f.label}</dt>
            <dd>{f.value === null || f.value === undefined ? <span className="muted">Not given</span>
              : f.recordId ? <Link href={recordHref(slug, f.recordId)}>{f.value}</Link>
                : f.href ? <Outside href={f.href}>{f.value}</Outside>
                  : withReadableDates(f.value)}</dd>
          </div>
        ))}
      </dl>
    </section>
  )
}

export function RecordCitations({ record }: { record: Rec }) {
  const citations = record.citations ?? []
  return (
    <section aria-labelledby="record-citations" className="region">
      <h2 id="record-citations">Citations</h2>
      {citations.length ? (
        <ul className="lines" data-testid="record-citations">
          {citations.map((c, i) => {
            const name = c.title ?? 'A source no longer held'
            return (
              <li key={`${c.ref}-${i}`}>
                {c.href ? <Outside href={c.href}>{name}</Outside> : name}
                <span className="muted">
                  , {CITATION_KIND[c.kind ?? ''] ?? 'Source'}
                  {c.place ? `, ${c.place}` : ''}
                  {c.documentVersion ? `, version ${c.documentVersion}` : ''}
                  {c.sourceSystem ? `, from ${sourceSystemName(c.sourceSystem)}` : ''}
                </span>
              </li>
            )
          })}
        </ul>
      ) : <p className="muted">This record cites nothing.</p>}
    </section>
  )
}

/** A record's versions, newest first; `after` follows the list inside the region (the trail line). */
export function RecordVersions({ record, after }: { record: Rec; after?: ReactNode }) {
  return (
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
            {v.changes?.length ? (
              <ul className="changes" data-testid="version-changes">
                {v.changes.map((c, i) => (
                  <li key={i}><span className="change-label">{c.label}</span>: {c.before ? withReadableDates(c.before) : 'not given'} <span aria-hidden="true">→</span><span className="visually-hidden">became</span> {c.after ? withReadableDates(c.after) : 'not given'}</li>
                ))}
              </ul>
            ) : null}
            {v.note ? <p className="muted">{v.note}</p> : null}
            {v.footer ? <p className="record-footer">{v.footer}</p> : null}
          </li>
        ))}
      </ol>
      {after}
    </section>
  )
}

/** A transition key in words: 'flag_at_risk' reads 'Flag at risk'. */
const outcomeWords = (o: string) => { const w = o.replace(/_/g, ' '); return w.charAt(0).toUpperCase() + w.slice(1) }

/**
 * What the person may do to the record: the transitions the API offers them from its status, with a note. Someone who
 * may not decide it reads why before trying (nothing to press).
 */
export function RecordActions({ record, onChanged }: { record: Rec; onChanged: () => void }) {
  const id = useId()
  const [note, setNote] = useState('')
  const [problem, setProblem] = useState('')
  const [{ fetching }, decide] = useMutation(DecideRecordDocument)
  const outcomes = record.viewerOutcomes ?? []
  const apply = async (outcome: string, e?: FormEvent) => {
    e?.preventDefault()
    setProblem('')
    const res = await decide({ id: record.id!, outcome, note: asWritten(note) })
    const out = res.data?.decideRecord
    if (res.error) return setProblem(describeError(res.error) ?? '')
    if (out?.__typename === 'MutationDecideRecordSuccess') { setNote(''); return onChanged() }
    setProblem(out?.__typename === 'InvalidInput' ? out.issues.map((i) => i.message).join(' ') : typedErrorMessage(out))
  }
  return (
    <section aria-labelledby={`${id}-h`} className="region" data-testid="record-actions">
      <h2 id={`${id}-h`}>What you can do</h2>
      {outcomes.length ? (
        <form className="stack" onSubmit={(e) => e.preventDefault()}>
          <label htmlFor={`${id}-note`}>Note (optional)</label>
          <textarea id={`${id}-note`} rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
          <div className="actions" role="group" aria-label={`Decide: ${record.title ?? ''}`}>
            {outcomes.map((o) => <button key={o} type="button" className="secondary" disabled={fetching} onClick={() => void apply(o)}>{outcomeWords(o)}</button>)}
          </div>
        </form>
      ) : (
        <p className="muted" data-testid="record-read-only">
          {record.viewerCanUpdate ? 'You may change this record; its status has no step that is yours to take now.' : 'You may read this record. Changing or deciding it is for other members of this program.'}
        </p>
      )}
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
    </section>
  )
}
