// One proposal as the person decides it: the twin's draft marked as agent-generated, its basis, and approve, approve
// with edits, or decline with a reason (inline forms, never a dialog). A stale proposal reads 'Changed since proposed'
// and cannot be approved; an expired one reads 'Expired, nothing written'. Once decided, the record's footer (every
// decision, a decline too), the approved title and text beside the proposed ones, the note and a decline's reason.
// Approve with edits edits the title, the draft's text and the record text, and keeps a note given alone.
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react'
import { useMutation, useQuery } from 'urql'
import {
  BasisRecordDocument, DecideProposalDocument, RecordFooterDocument,
  type DecisionRecordFragment, type DeclineReason, type InboxCardFragment, type ProposalDecision,
} from '../generated/graphql'
import { FIXED_PHRASES, TWINS } from '../copy'
import { describeError, typedErrorMessage } from '../api/errors'
import { formatDate, formatDateTime, asWritten } from '../format'
import { MemoryNotes } from './memory-notes'
import { TrailLine } from './trail-line'
import { Link } from '../router'
import { DECLINE_REASONS, DecisionDetails, OUTCOME } from './decision-record'
import { DraftText } from './draft-text'

export interface Decided {
  outcome: string
  decidedAt: string | null
  recordId: string | null
  footer: string | null
  delegation: string | null
  /** The decision as recorded: note, reason, what was proposed and what was approved. */
  record: Partial<DecisionRecordFragment> | null
}

/** What the person gives with approve with edits (sent only where they changed something; a note alone is enough). */
type Edits = { title?: string; draft?: string; body?: string; note?: string }

type Panel = 'none' | 'edit' | 'decline'

/** An open proposal the person may not decide (Proposal.viewerCanDecide false): said before they try, no buttons. */
export const NOT_YOURS_TO_DECIDE = 'You can read this proposal. Deciding it needs an approval you do not hold in this program.'

/** Selection for a batch approval: a checkbox on the card, labelled by its title. */
export interface BatchSelect {
  checked: boolean
  disabled: boolean
  onChange: (checked: boolean) => void
}

/**
 * The routing line of an item a delegation routed to the person, before it is decided. Once decided, the record reads
 * the specification's 'Routed under delegation from <Name>; decided by <Name> in their own right.' (the API's
 * `decision.delegation`, shown with the outcome).
 */
export function delegatedTo(principal: string): string {
  return `Delegated to you by ${principal}. You decide in your own right.`
}

/** What a decided proposal's `decision` becomes on its card. */
export function decidedFrom(d: Partial<DecisionRecordFragment> | null | undefined): Decided {
  return { outcome: d?.outcome ?? '', decidedAt: d?.decidedAt ?? null, recordId: d?.recordId ?? null, footer: d?.footer ?? null, delegation: d?.delegation ?? null, record: d ?? null }
}

export function ProposalCard({ item, decided, onDecided, select, children }: {
  item: InboxCardFragment; decided?: Decided; onDecided?: (d: Decided) => void; select?: BatchSelect; children?: ReactNode
}) {
  const proposal = item.proposal
  const headingId = useId()
  const [panel, setPanel] = useState<Panel>('none')
  const [problem, setProblem] = useState('')
  const [{ fetching }, decide] = useMutation(DecideProposalDocument)
  const expired = item.status === 'expired' || proposal?.status === 'expired'
  const stale = Boolean(proposal?.stale) && !expired
  // Once approved, the card reads the title the person approved, not the one proposed.
  const title = decided?.record?.approved?.title ?? proposal?.title ?? item.title
  const proposedBody = typeof (proposal?.change as { body?: unknown } | null)?.body === 'string' ? (proposal!.change as { body: string }).body : null
  const draftEdited = Boolean(decided?.record?.approved && decided.record.approved.draft !== decided.record.proposed?.draft)

  const send = async (decision: ProposalDecision, extra: { edits?: Edits; reason?: string; reasonCode?: DeclineReason } = {}) => {
    if (!proposal?.id) return
    setProblem('')
    const res = await decide({ id: proposal.id, decision, ...extra })
    const out = res.data?.decideProposal
    if (res.error) return setProblem(describeError(res.error) ?? '')
    if (out?.__typename === 'MutationDecideProposalSuccess') {
      const d = out.proposal.decision
      setPanel('none')
      onDecided?.(decidedFrom(d))
      return
    }
    if (out?.__typename === 'StaleProposal') return setProblem(TWINS.changedSinceProposed)
    if (out?.__typename === 'InvalidInput') return setProblem(out.issues.map((i) => i.message).join(' ') || typedErrorMessage(out))
    setProblem(typedErrorMessage(out))
  }

  return (
    <article className={`card proposal${stale ? ' stale' : ''}${expired ? ' expired' : ''}`} aria-labelledby={headingId} data-testid="proposal-card">
      <h4 id={headingId}>{title}</h4>
      {select && !decided && !expired && !stale && proposal?.status === 'open' && proposal.viewerCanDecide !== false ? (
        <label className="select-line">
          <input type="checkbox" aria-label={`Select for batch approval: ${title ?? ''}`} checked={select.checked} disabled={select.disabled} onChange={(e) => select.onChange(e.target.checked)} />
          <span aria-hidden="true">Select for batch approval</span>
        </label>
      ) : null}
      {item.delegatedFrom?.name && !decided ? <p className="muted" data-testid="routing">{delegatedTo(item.delegatedFrom.name)}</p> : null}
      {stale ? <p className="flag" data-testid="stale">{TWINS.changedSinceProposed}</p> : null}
      {expired ? <p className="flag" data-testid="expired">{FIXED_PHRASES.expiredNothingWritten}</p> : null}
      {proposal?.createdAt ? <p className="muted">Filed {formatDateTime(proposal.createdAt)}</p> : null}
      {proposal?.draft?.text && !draftEdited ? (
        <div className="draft">
          <p className="draft-label">{FIXED_PHRASES.agentGeneratedDraft}</p>
          <DraftText text={proposal.draft.text} slug={item.program?.slug ?? null} />
        </div>
      ) : null}
      {proposal?.uncitedInterpretations ? <AssertionLint uncited={proposal.uncitedInterpretations} /> : null}
      {proposal?.basis?.length ? (
        <div className="basis">
          <p className="label">Based on</p>
          <ul>{proposal.basis.map((b) => b.recordId ? <BasisLine key={b.recordId} id={b.recordId} version={b.version} slug={item.program?.slug ?? null} /> : null)}</ul>
        </div>
      ) : null}

      {decided ? <Outcome decided={decided} slug={item.program?.slug ?? null} /> : null}
      {decided ? <TrailLine programId={item.program?.id} targetId={proposal?.id} /> : null}
      {!expired && item.memoryNotes?.length ? <MemoryNotes notes={item.memoryNotes} /> : null}

      {!decided && !expired && proposal?.status === 'open' && proposal.viewerCanDecide === false ? (
        <p className="muted" data-testid="not-yours-to-decide">{NOT_YOURS_TO_DECIDE}</p>
      ) : null}
      {!decided && !expired && proposal?.status === 'open' && proposal.viewerCanDecide !== false ? (
        <>
          <div className="actions" role="group" aria-label={`Decide: ${title ?? ''}`}>
            <button type="button" disabled={fetching || stale} onClick={() => void send('APPROVE')}>Approve</button>
            <button type="button" className="secondary" disabled={fetching || stale} aria-expanded={panel === 'edit'} onClick={() => setPanel(panel === 'edit' ? 'none' : 'edit')}>Approve with edits</button>
            <button type="button" className="secondary" disabled={fetching} aria-expanded={panel === 'decline'} onClick={() => setPanel(panel === 'decline' ? 'none' : 'decline')}>Decline</button>
          </div>
          {panel === 'edit' ? (
            <EditForm
              initial={{ title: title ?? '', draft: proposal?.draft?.text ?? '', body: proposedBody }} busy={fetching} onCancel={() => setPanel('none')}
              onNothing={() => setProblem('Change the title or the text, or say what you changed and why.')}
              onSubmit={(edits) => void send('APPROVE_WITH_EDITS', { edits })}
            />
          ) : null}
          {panel === 'decline' ? <DeclineForm busy={fetching} onCancel={() => setPanel('none')} onSubmit={(reasonCode, reason) => void send('DECLINE', { reasonCode, reason })} /> : null}
        </>
      ) : null}
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
      {!decided ? children : null}
    </article>
  )
}

/** A basis line: the record's title as a link to its page (the version the twin read beside it). */
function BasisLine({ id, version, slug }: { id: string; version: number | null; slug: string | null }) {
  const [{ data }] = useQuery({ query: BasisRecordDocument, variables: { id } })
  const r = data?.record
  if (!r) return <li className="muted">A record you cannot open</li>
  const title = slug ? <Link href={`/p/${encodeURIComponent(slug)}/records/${encodeURIComponent(id)}`}>{r.title}</Link> : r.title
  return <li data-testid="basis-line">{title}{version ? <span className="muted">, version {version}</span> : null}</li>
}

function Outcome({ decided, slug }: { decided: Decided; slug: string | null }) {
  const [{ data }] = useQuery({ query: RecordFooterDocument, variables: { id: decided.recordId ?? '' }, pause: !decided.recordId })
  const footer = data?.record?.footer ?? decided.footer
  // The decided card replaces the one whose button had the focus: the focus moves to its outcome, not to the page.
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => ref.current?.focus(), [])
  return (
    <div className="outcome" role="status" tabIndex={-1} ref={ref}>
      <p><strong>{OUTCOME[decided.outcome] ?? 'Decided'}</strong>{decided.decidedAt ? ` on ${formatDate(decided.decidedAt)}` : ''}.</p>
      {decided.record ? <DecisionDetails decision={decided.record} /> : null}
      {footer ? <footer className="record-footer" data-testid="record-footer">{footer}</footer> : null}
      {decided.delegation ? <p className="muted">{decided.delegation}</p> : null}
      {decided.recordId && slug ? <p><Link href={`/p/${encodeURIComponent(slug)}/records/${encodeURIComponent(decided.recordId)}`}>Open the record</Link></p> : null}
    </div>
  )
}

function EditForm({ initial, busy, onSubmit, onNothing, onCancel }: {
  initial: { title: string; draft: string; body: string | null }; busy: boolean; onSubmit: (edits: Edits) => void; onNothing: () => void; onCancel: () => void
}) {
  const id = useId()
  const [title, setTitle] = useState(initial.title)
  const [draft, setDraft] = useState(initial.draft)
  const [body, setBody] = useState(initial.body ?? '')
  const [note, setNote] = useState('')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    // Exactly what the person typed: nothing is trimmed; only what they changed is sent, and a note alone is an edit.
    const edits: Edits = {
      ...(title !== initial.title ? { title } : {}),
      ...(draft !== initial.draft ? { draft } : {}),
      ...(initial.body !== null && body !== initial.body ? { body } : {}),
      ...(asWritten(note) ? { note } : {}),
    }
    if (Object.keys(edits).length === 0) return onNothing()
    onSubmit(edits)
  }
  return (
    <form className="inline-form" onSubmit={submit} onKeyDown={(e) => { if (e.key === 'Escape') onCancel() }}>
      <label htmlFor={`${id}-title`}>Title</label>
      <input id={`${id}-title`} value={title} onChange={(e) => setTitle(e.target.value)} autoFocus />
      <label htmlFor={`${id}-draft`}>Text</label>
      <textarea id={`${id}-draft`} rows={4} value={draft} onChange={(e) => setDraft(e.target.value)} />
      {initial.body !== null ? (
        <>
          <label htmlFor={`${id}-body`}>Record text</label>
          <textarea id={`${id}-body`} rows={4} value={body} onChange={(e) => setBody(e.target.value)} />
        </>
      ) : null}
      <label htmlFor={`${id}-note`}>What you changed and why</label>
      <textarea id={`${id}-note`} rows={3} value={note} onChange={(e) => setNote(e.target.value)} />
      <div className="actions">
        <button type="submit" disabled={busy}>Approve with these edits</button>
        <button type="button" className="quiet" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  )
}

function DeclineForm({ busy, onSubmit, onCancel }: { busy: boolean; onSubmit: (code: DeclineReason, reason: string) => void; onCancel: () => void }) {
  const id = useId()
  const [code, setCode] = useState<DeclineReason | ''>('')
  const [reason, setReason] = useState('')
  const ready = code !== '' && (code !== 'other' || reason.trim() !== '')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (ready) onSubmit(code as DeclineReason, reason)
  }
  return (
    <form className="inline-form" onSubmit={submit} onKeyDown={(e) => { if (e.key === 'Escape') onCancel() }}>
      <p>{TWINS.declineNeedsReason}</p>
      <label htmlFor={`${id}-code`}>Reason</label>
      <select id={`${id}-code`} value={code} onChange={(e) => setCode(e.target.value as DeclineReason)} autoFocus>
        <option value="">Choose a reason</option>
        {DECLINE_REASONS.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
      </select>
      <label htmlFor={`${id}-reason`}>In your words</label>
      <textarea id={`${id}-reason`} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      <div className="actions">
        <button type="submit" disabled={busy || !ready}>Decline</button>
        <button type="button" className="quiet" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  )
}

/**
 * What evidence.assertion_lint found before the twin filed: each interpretation of the draft without a citation,
 * listed for the person to weigh (the lint flags; it never refuses the proposal).
 */
function AssertionLint({ uncited }: { uncited: readonly string[] }) {
  if (uncited.length === 0) return <p className="muted" data-testid="assertion-lint">Citation check: every interpretation is cited.</p>
  return (
    <div className="assertion-lint" data-testid="assertion-lint">
      <p className="flag">Uncited interpretations: {uncited.length}</p>
      <ul>{uncited.map((text, i) => <li key={i}>{text}</li>)}</ul>
    </div>
  )
}
