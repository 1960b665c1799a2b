// 'Decisions waiting for you' for one program: the person's open and expired items, live over graphql-ws
// (inboxChanged announces a change; the list is refetched, since events are not durable), with the empty state.
import { useCallback, useEffect, useState } from 'react'
import { useMutation, useQuery, useSubscription } from 'urql'
import { DecideBatchDocument, InboxChangedDocument, MyInboxDocument, type InboxCardFragment } from '../generated/graphql'
import { FIXED_PHRASES, TWINS, nothingWaiting } from '../copy'
import { describeError, typedErrorMessage } from '../api/errors'
import { RECONNECTED_EVENT } from '../api/client'
import { formatDateTime, formatTime } from '../format'
import { ProposalCard, decidedFrom, delegatedTo, type Decided } from './proposal-card'
import { InboxItemActions } from './inbox-item-actions'

/** What an item of each kind asks of the person, above its title. */
const KIND_LINE: Record<string, string> = {
  signature: 'Waiting for your signature: it resolves when you sign it where it lives',
  question: 'A question for you',
  information: 'For your information',
  handoff: 'A hand-off',
  mention: 'You were mentioned',
}

/** The API's limit for one batch approval (decideBatch). */
export const BATCH_LIMIT = 10

interface Props {
  programId: string
  nextPassAt: string | null
  /** The person holds only the viewer persona here: no twin, nothing waits. */
  viewerNotice: boolean
  onChanged: () => void
}

export function Inbox({ programId, nextPassAt, viewerNotice, onChanged }: Props) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: MyInboxDocument, requestPolicy: 'cache-and-network' })
  // Cards decided here stay on screen with their outcome and footer after the item leaves the open list.
  const [decided, setDecided] = useState<{ item: InboxCardFragment; outcome: Decided }[]>([])

  const reload = useCallback(() => {
    refetch({ requestPolicy: 'network-only' })
    onChanged()
  }, [refetch, onChanged])
  useSubscription({ query: InboxChangedDocument }, (_prev, event) => {
    if (!event.inboxChanged?.program?.id || event.inboxChanged.program.id === programId) reload()
    return event
  })
  useEffect(() => {
    window.addEventListener(RECONNECTED_EVENT, reload)
    return () => window.removeEventListener(RECONNECTED_EVENT, reload)
  }, [reload])

  // Proposals chosen for a batch approval, by inbox item id, in the order chosen; at most BATCH_LIMIT.
  const [selected, setSelected] = useState<string[]>([])
  const [said, setSaid] = useState('')
  const [batchProblems, setBatchProblems] = useState<string[]>([])
  const [batch, decideBatch] = useMutation(DecideBatchDocument)

  const decidedIds = new Set(decided.map((d) => d.item.id))
  const mine = (data?.myInbox?.nodes ?? []).filter((n) => n.program?.id === programId && !decidedIds.has(n.id))
  const items = mine.filter((n) => n.kind === 'decision')
  const open = items.filter((n) => n.status === 'open')
  const expired = items.filter((n) => n.status === 'expired')
  // Other items that wait for the person (signatures, questions, hand-offs, mentions, information): snooze, dismiss,
  // feedback; a signature resolves only when the person signs what it points to (stage items live on the gate screen).
  const others = mine.filter((n) => n.kind !== 'decision' && n.kind !== 'stage' && n.status === 'open')
  const openIds = new Set(open.map((n) => n.id))
  const chosen = selected.filter((id) => openIds.has(id))

  const toggle = (id: string, on: boolean) => setSelected((s) => (on ? (s.includes(id) || s.length >= BATCH_LIMIT ? s : [...s, id]) : s.filter((x) => x !== id)))
  const changed = (sentence: string) => {
    setSaid(sentence)
    reload()
  }
  const approveSelected = async () => {
    const picked = open.filter((n) => chosen.includes(n.id!) && n.proposal?.id)
    if (!picked.length) return
    setBatchProblems([])
    const res = await decideBatch({ items: picked.map((n) => ({ proposalId: n.proposal!.id!, decision: 'APPROVE' as const })) })
    const out = res.data?.decideBatch
    if (res.error) return setBatchProblems([describeError(res.error) ?? ''])
    if (out?.__typename !== 'MutationDecideBatchSuccess') {
      return setBatchProblems([out?.__typename === 'InvalidInput' && out.issues.length ? out.issues.map((i) => i.message).join(' ') : typedErrorMessage(out)])
    }
    const byProposal = new Map(picked.map((n) => [n.proposal!.id!, n]))
    const done: { item: InboxCardFragment; outcome: Decided }[] = []
    const problems: string[] = []
    for (const r of out.batch.items ?? []) {
      const item = byProposal.get(r.proposalId ?? '')
      if (!item) continue
      if (r.proposal?.decision && !r.error) done.push({ item, outcome: decidedFrom(r.proposal.decision) })
      else problems.push(`${item.proposal?.title ?? item.title}: ${r.error?.message ?? 'Not approved.'}`)
    }
    setDecided((d) => [...done, ...d])
    setSelected([])
    setBatchProblems(problems)
    setSaid(`${done.length} approved${problems.length ? `, ${problems.length} not approved` : ''}.`)
    onChanged()
  }

  return (
    <div className="inbox">
      <h3>{FIXED_PHRASES.decisionsWaiting}</h3>
      {/* Read out when a decision arrives or leaves, without reading every card again. */}
      <p className="visually-hidden" role="status">{data ? `${open.length} waiting.${said ? ` ${said}` : ''}` : ''}</p>
      {error && !data ? <p role="alert" className="problem">{describeError(error)}</p> : null}
      {fetching && !data ? <p role="status">Loading…</p> : null}
      {data && open.length === 0 ? (
        <p className="empty" data-testid="inbox-empty">
          {viewerNotice ? TWINS.viewersHaveNoTwin : nextPassAt ? nothingWaiting(formatTime(nextPassAt)) : 'Nothing waiting.'}
        </p>
      ) : null}
      {open.length > 1 ? (
        <div className="batch" role="group" aria-labelledby="batch-line">
          <p id="batch-line" data-testid="batch-count">
            {chosen.length} of at most {BATCH_LIMIT} selected. Select the proposals you have read to approve them together.
          </p>
          <button type="button" disabled={chosen.length === 0 || batch.fetching} onClick={() => void approveSelected()}>
            Approve {chosen.length === 1 ? 'the selected proposal' : `${chosen.length} selected proposals`}
          </button>
          {batchProblems.length ? (
            <ul role="alert" className="problem">{batchProblems.map((p, i) => <li key={i}>{p}</li>)}</ul>
          ) : null}
        </div>
      ) : null}
      <ol className="cards">
        {open.map((item) => (
          <li key={item.id}>
            <ProposalCard
              item={item}
              onDecided={(outcome) => { setDecided((d) => [{ item, outcome }, ...d]); onChanged() }}
              select={open.length > 1 ? {
                checked: chosen.includes(item.id!),
                disabled: !chosen.includes(item.id!) && chosen.length >= BATCH_LIMIT,
                onChange: (on) => toggle(item.id!, on),
              } : undefined}
            >
              <InboxItemActions item={item} onChanged={changed} />
            </ProposalCard>
          </li>
        ))}
      </ol>
      {others.length ? (
        <>
          <h4>Also waiting for you</h4>
          <ol className="cards">
            {others.map((item) => (
              <li key={item.id}>
                <article className="card" aria-labelledby={`item-${item.id}`} data-testid="inbox-item">
                  <p className="muted" data-testid="inbox-item-kind">{KIND_LINE[item.kind ?? ''] ?? 'Waiting for you'}{item.escalatedAt ? ', escalated' : ''}</p>
                  <h5 id={`item-${item.id}`}>{item.title}</h5>
                  {item.delegatedFrom?.name ? <p className="muted">{delegatedTo(item.delegatedFrom.name)}</p> : null}
                  {item.createdAt ? <p className="muted">Filed {formatDateTime(item.createdAt)}</p> : null}
                  <InboxItemActions item={item} onChanged={changed} />
                </article>
              </li>
            ))}
          </ol>
        </>
      ) : null}
      {decided.length ? (
        <>
          <h4>Decided just now</h4>
          <ol className="cards">
            {decided.map(({ item, outcome }) => <li key={item.id}><ProposalCard item={item} decided={outcome} /></li>)}
          </ol>
        </>
      ) : null}
      {expired.length ? (
        <>
          <h4>Expired</h4>
          <ol className="cards">
            {expired.map((item) => <li key={item.id}><ProposalCard item={item} /></li>)}
          </ol>
        </>
      ) : null}
    </div>
  )
}
