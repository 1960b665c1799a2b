// A decision as people read it later, on the decided card and on the record page: the record footer ('… decided by
// <Name>', for every decision), the decider's note, a decline's reason and words, and what was approved beside what
// was proposed wherever the two differ. Every text is shown exactly as recorded, as text.
import { useQuery } from 'urql'
import { RecordDecisionsDocument, type DeclineReason, type DecisionRecordFragment } from '../generated/graphql'
import { formatDate } from '../format'

export const DECLINE_REASONS: { value: DeclineReason; label: string }[] = [
  { value: 'incorrect', label: 'Incorrect' },
  { value: 'incomplete', label: 'Incomplete' },
  { value: 'not_needed', label: 'Not needed' },
  { value: 'duplicate', label: 'Duplicate' },
  { value: 'out_of_scope', label: 'Out of scope' },
  { value: 'other', label: 'Other' },
]

export const OUTCOME: Record<string, string> = {
  approved: 'Approved',
  approved_with_edits: 'Approved with edits',
  declined: 'Declined',
}

type Content = { title?: string | null; draft?: string | null; body?: string | null } | null | undefined

/** One approved text beside the proposed one, shown only where the decider changed it. */
function Changed({ label, approved, proposed, prose }: { label: string; approved?: string | null; proposed?: string | null; prose?: boolean }) {
  if (approved == null || approved === proposed) return null
  return (
    <>
      <div><dt>{label} approved</dt><dd className={prose ? 'prose' : undefined} data-testid={`approved-${label.toLowerCase().replace(/ /g, '-')}`}>{approved}</dd></div>
      <div><dt>{label} proposed</dt><dd className={`muted${prose ? ' prose' : ''}`}>{proposed ?? ''}</dd></div>
    </>
  )
}

/** What a decision recorded, below its outcome line: edits beside the proposal, the note, a decline's reason. */
export function DecisionDetails({ decision }: { decision: Partial<Pick<DecisionRecordFragment, 'decidedByName' | 'note' | 'reasonCode' | 'reason'>> & { proposed?: Content; approved?: Content } }) {
  const { proposed, approved } = decision
  const reasonLabel = DECLINE_REASONS.find((r) => r.value === decision.reasonCode)?.label ?? decision.reasonCode
  const who = decision.decidedByName ?? 'The decider'
  const rows = [
    approved && proposed ? <Changed key="title" label="Title" approved={approved.title} proposed={proposed.title} /> : null,
    approved && proposed ? <Changed key="text" label="Text" approved={approved.draft} proposed={proposed.draft} prose /> : null,
    approved && proposed ? <Changed key="body" label="Record text" approved={approved.body} proposed={proposed.body} prose /> : null,
    decision.note ? <div key="note"><dt>What {who} changed and why</dt><dd className="prose" data-testid="decision-note">{decision.note}</dd></div> : null,
    decision.reasonCode ? <div key="code"><dt>Reason</dt><dd data-testid="decline-reason-code">{reasonLabel}</dd></div> : null,
    decision.reason ? <div key="reason"><dt>In {who}'s words</dt><dd className="prose" data-testid="decline-reason">{decision.reason}</dd></div> : null,
  ].filter(Boolean)
  return rows.length ? <dl className="decision-details">{rows}</dl> : null
}

/** The decisions section of a record page: every decision taken on the record (declines too), as recorded. */
export function RecordDecisions({ recordId }: { recordId: string }) {
  const [{ data }] = useQuery({ query: RecordDecisionsDocument, variables: { recordId } })
  const decisions = data?.recordDecisions ?? []
  if (!decisions.length) return null
  return (
    <section aria-labelledby="record-decisions" className="region">
      <h2 id="record-decisions">Decisions</h2>
      <ol className="versions" reversed>
        {decisions.map((p) => p.decision ? (
          <li key={p.id} data-testid="record-decision">
            <p>
              <strong>{OUTCOME[p.decision.outcome ?? ''] ?? 'Decided'}</strong>
              {p.decision.version ? `, version ${p.decision.version}` : ''}
              {p.decision.decidedAt ? ` on ${formatDate(p.decision.decidedAt)}` : ''}: {p.decision.proposed?.title ?? p.title}
            </p>
            <DecisionDetails decision={p.decision} />
            {p.decision.footer ? <p className="record-footer">{p.decision.footer}</p> : null}
            {p.decision.delegation ? <p className="muted">{p.decision.delegation}</p> : null}
          </li>
        ) : null)}
      </ol>
    </section>
  )
}
