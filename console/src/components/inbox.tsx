// 'Decisions waiting for you' for one program: the person's open and expired items, live over graphql-ws
// (inboxChanged announces a change; the list is refetched, since events are not durable), with the empty state.
import { useCallback, useEffect, useState } from 'react'
import { useQuery, useSubscription } from 'urql'
import { InboxChangedDocument, MyInboxDocument, type InboxCardFragment } from '../generated/graphql'
import { FIXED_PHRASES, TWINS, nothingWaiting } from '../copy'
import { describeError } from '../api/errors'
import { RECONNECTED_EVENT } from '../api/client'
import { formatTime } from '../format'
import { ProposalCard, type Decided } from './proposal-card'

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

  const decidedIds = new Set(decided.map((d) => d.item.id))
  const items = (data?.myInbox?.nodes ?? [])
    .filter((n) => n.program?.id === programId && n.kind === 'decision' && !decidedIds.has(n.id))
  const open = items.filter((n) => n.status === 'open')
  const expired = items.filter((n) => n.status === 'expired')

  return (
    <div className="inbox">
      <h3>{FIXED_PHRASES.decisionsWaiting}</h3>
      {/* Read out when a decision arrives or leaves, without reading every card again. */}
      <p className="visually-hidden" role="status">{data ? `${open.length} waiting` : ''}</p>
      {error && !data ? <p role="alert" className="problem">{describeError(error)}</p> : null}
      {fetching && !data ? <p role="status">Loading…</p> : null}
      {data && open.length === 0 ? (
        <p className="empty" data-testid="inbox-empty">
          {viewerNotice ? TWINS.viewersHaveNoTwin : nextPassAt ? nothingWaiting(formatTime(nextPassAt)) : 'Nothing waiting.'}
        </p>
      ) : null}
      <ol className="cards">
        {open.map((item) => (
          <li key={item.id}>
            <ProposalCard item={item} onDecided={(outcome) => { setDecided((d) => [{ item, outcome }, ...d]); onChanged() }} />
          </li>
        ))}
      </ol>
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
