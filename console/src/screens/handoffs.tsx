// Hand-offs and delegations in one program (/p/<slug>/handoffs). A hand-off sent to the person (or to a persona they
// hold): accept, decline with a reason (an inline form), complete once accepted. One they sent: withdraw while it
// waits. Delegations: route one's write approvals to a colleague for at most 30 days, and revoke it at once.
import { useEffect, useId, useState, type FormEvent } from 'react'
import { useMutation, useQuery } from 'urql'
import {
  AcceptHandoffDocument, CompleteHandoffDocument, CreateDelegationDocument, DeclineHandoffDocument, MeDocument,
  MyDelegationsDocument, ProgramHandoffsDocument, RevokeDelegationDocument, RoleHomeDocument, WithdrawHandoffDocument,
  type HandoffLineFragment,
} from '../generated/graphql'
import { describeError, typedErrorMessage } from '../api/errors'
import { formatDate, formatDateTime, asWritten } from '../format'
import { Link } from '../router'
import { ProgramUnavailable } from '../components/program-unavailable'

const STATUS: Record<string, string> = { sent: 'Waiting', accepted: 'Accepted', declined: 'Declined', done: 'Done', withdrawn: 'Withdrawn' }
const KIND: Record<string, string> = { review: 'Review', data: 'Data', decision: 'Decision', information: 'Information' }
const PERSONA: Record<string, string> = {
  program_owner: 'the program owner', program_lead: 'the program lead', scientist: 'a scientist',
  quality_reviewer: 'a quality reviewer', manufacturing_specialist: 'a manufacturing specialist',
}

type Outcome = { __typename: string; message?: string | null; issues?: { message?: string | null }[] | null } | null | undefined
function problemOf(res: { error?: Parameters<typeof describeError>[0] }, out: Outcome): string {
  if (res.error) return describeError(res.error) ?? ''
  if (!out || out.__typename.startsWith('Mutation')) return ''
  if (out.issues?.length) return out.issues.map((i) => i.message).join(' ')
  return typedErrorMessage(out)
}

export function Handoffs({ slug }: { slug: string }) {
  const [home] = useQuery({ query: RoleHomeDocument, variables: { slug } })
  const [me] = useQuery({ query: MeDocument })
  const program = home.data?.program
  const myId = me.data?.me?.user?.id ?? null
  useEffect(() => {
    if (program?.name) document.title = `${program.name}: hand-offs and delegations`
  }, [program?.name])

  if (home.fetching && !home.data) return <main id="main" className="page"><p role="status">Loading…</p></main>
  if (home.error && !home.data) return <main id="main" className="page"><p role="alert" className="problem">{describeError(home.error)}</p></main>
  if (!program?.id) {
    return <ProgramUnavailable />
  }
  return (
    <main id="main" className="page record-page">
      <nav aria-label="Breadcrumb" className="crumbs"><Link href={`/p/${encodeURIComponent(slug)}/home`}>{program.name}</Link></nav>
      <h1>Hand-offs and delegations</h1>
      <HandoffList programId={program.id} myId={myId} />
      <Delegations programId={program.id} myId={myId} />
    </main>
  )
}

function HandoffList({ programId, myId }: { programId: string; myId: string | null }) {
  const [{ data, error }, refetch] = useQuery({ query: ProgramHandoffsDocument, variables: { programId }, requestPolicy: 'cache-and-network' })
  const all = data?.handoffs?.nodes ?? []
  const sent = all.filter((h) => h.from?.id === myId)
  const received = all.filter((h) => h.from?.id !== myId)
  const again = () => refetch({ requestPolicy: 'network-only' })
  return (
    <>
      <section aria-labelledby="handoffs-in" className="region">
        <h2 id="handoffs-in">Hand-offs to you</h2>
        {error && !data ? <p role="alert" className="problem">{describeError(error)}</p> : null}
        {data && !received.length ? <p className="muted">No hand-offs for you.</p> : null}
        <ol className="cards">{received.map((h) => <li key={h.id}><HandoffCard h={h} mine={false} onChanged={again} /></li>)}</ol>
      </section>
      <section aria-labelledby="handoffs-out" className="region">
        <h2 id="handoffs-out">Hand-offs you sent</h2>
        {data && !sent.length ? <p className="muted">You have sent no hand-offs.</p> : null}
        <ol className="cards">{sent.map((h) => <li key={h.id}><HandoffCard h={h} mine onChanged={again} /></li>)}</ol>
      </section>
    </>
  )
}

function HandoffCard({ h, mine, onChanged }: { h: HandoffLineFragment; mine: boolean; onChanged: () => void }) {
  const id = useId()
  const [declining, setDeclining] = useState(false)
  const [reason, setReason] = useState('')
  const [problem, setProblem] = useState('')
  const [accept, doAccept] = useMutation(AcceptHandoffDocument)
  const [decline, doDecline] = useMutation(DeclineHandoffDocument)
  const [complete, doComplete] = useMutation(CompleteHandoffDocument)
  const [withdraw, doWithdraw] = useMutation(WithdrawHandoffDocument)
  const busy = accept.fetching || decline.fetching || complete.fetching || withdraw.fetching
  const title = `${KIND[h.kind ?? ''] ?? 'Hand-off'} hand-off ${mine ? `to ${h.to?.name ?? PERSONA[h.toPersonaKey ?? ''] ?? 'a colleague'}` : `from ${h.from?.name ?? 'a colleague'}`}`

  const run = async (p: Promise<{ error?: Parameters<typeof describeError>[0]; data?: unknown }>, pick: (d: any) => Outcome) => {
    setProblem('')
    const res = await p
    const problemText = problemOf(res, pick(res.data))
    if (problemText) return setProblem(problemText)
    setDeclining(false)
    onChanged()
  }
  const submitDecline = (e: FormEvent) => {
    e.preventDefault()
    if (!reason.trim()) return setProblem('Say why you decline: the sender reads it.')
    void run(doDecline({ id: h.id!, reason }), (d) => d?.declineHandoff)
  }

  return (
    <article className="card" aria-labelledby={`${id}-h`} data-testid="handoff">
      <h3 id={`${id}-h`}>{title}</h3>
      <p><span className="flag-quiet" data-testid="handoff-status">{STATUS[h.status ?? ''] ?? 'Waiting'}</span>
        {h.createdAt ? <span className="muted">, sent {formatDateTime(h.createdAt)}</span> : null}</p>
      {h.messageMd ? <p className="prose">{h.messageMd}</p> : null}
      {h.status === 'declined' && h.reason ? <p className="muted">Declined{h.decidedBy?.name ? ` by ${h.decidedBy.name}` : ''}: {h.reason}</p> : null}
      <div className="actions">
        {!mine && h.status === 'sent' ? (
          <>
            <button type="button" disabled={busy} onClick={() => void run(doAccept({ id: h.id! }), (d) => d?.acceptHandoff)}>Accept</button>
            <button type="button" className="secondary" disabled={busy} aria-expanded={declining} onClick={() => setDeclining(!declining)}>Decline</button>
          </>
        ) : null}
        {!mine && h.status === 'accepted' ? (
          <button type="button" disabled={busy} onClick={() => void run(doComplete({ id: h.id! }), (d) => d?.completeHandoff)}>Mark complete</button>
        ) : null}
        {mine && h.status === 'sent' ? (
          <button type="button" className="secondary" disabled={busy} onClick={() => void run(doWithdraw({ id: h.id! }), (d) => d?.withdrawHandoff)}>Withdraw</button>
        ) : null}
      </div>
      {declining ? (
        <form className="inline-form" onSubmit={submitDecline} onKeyDown={(e) => { if (e.key === 'Escape') setDeclining(false) }}>
          <label htmlFor={`${id}-reason`}>Why you decline</label>
          <textarea id={`${id}-reason`} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} autoFocus />
          <div className="actions">
            <button type="submit" disabled={busy}>Decline this hand-off</button>
            <button type="button" className="quiet" onClick={() => setDeclining(false)}>Cancel</button>
          </div>
        </form>
      ) : null}
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
    </article>
  )
}

function Delegations({ programId, myId }: { programId: string; myId: string | null }) {
  const id = useId()
  const [{ data, error }, refetch] = useQuery({ query: MyDelegationsDocument, variables: { programId }, requestPolicy: 'cache-and-network' })
  const [delegate, setDelegate] = useState('')
  const [days, setDays] = useState(7)
  const [reason, setReason] = useState('')
  const [problem, setProblem] = useState('')
  const [create, doCreate] = useMutation(CreateDelegationDocument)
  const [revoke, doRevoke] = useMutation(RevokeDelegationDocument)
  const people = (data?.programMembers?.members?.nodes ?? []).map((m) => m.user).filter((u) => u?.id && u.id !== myId)
  const given = (data?.myDelegations ?? []).filter((d) => d.user?.id === myId)
  const received = (data?.myDelegations ?? []).filter((d) => d.delegate?.id === myId)

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setProblem('')
    if (!delegate) return setProblem('Choose who decides for you.')
    const endsAt = new Date(Date.now() + days * 86_400_000).toISOString()
    const res = await doCreate({ delegateUserId: delegate, programId, endsAt, reason: asWritten(reason) })
    const p = problemOf(res, res.data?.createDelegation)
    if (p) return setProblem(p)
    setDelegate('')
    setReason('')
    refetch({ requestPolicy: 'network-only' })
  }
  const revokeOne = async (delegationId: string) => {
    setProblem('')
    const res = await doRevoke({ id: delegationId })
    const p = problemOf(res, res.data?.revokeDelegation)
    if (p) return setProblem(p)
    refetch({ requestPolicy: 'network-only' })
  }

  return (
    <section aria-labelledby="delegations" className="region">
      <h2 id="delegations">Delegations</h2>
      <p className="muted">A delegation routes your write approvals in this program to a colleague, who decides them in their own right, for at most 30 days.</p>
      {error && !data ? <p role="alert" className="problem">{describeError(error)}</p> : null}
      {given.length ? (
        <ul className="lines" data-testid="delegations-given">
          {given.map((d) => (
            <li key={d.id}>
              {d.delegate?.name} decides for you until {formatDate(d.endsAt)}{d.reason ? <span className="muted">, {d.reason}</span> : null}{' '}
              <button type="button" className="link" disabled={revoke.fetching} onClick={() => void revokeOne(d.id!)} aria-label={`Revoke the delegation to ${d.delegate?.name ?? ''}`}>Revoke</button>
            </li>
          ))}
        </ul>
      ) : data ? <p data-testid="no-delegation">You have no active delegation.</p> : null}
      {received.length ? (
        <ul className="lines">
          {received.map((d) => <li key={d.id}>You decide for {d.user?.name} until {formatDate(d.endsAt)}.</li>)}
        </ul>
      ) : null}
      <form className="inline-form" onSubmit={(e) => void submit(e)}>
        <label htmlFor={`${id}-who`}>Who decides for you</label>
        <select id={`${id}-who`} value={delegate} onChange={(e) => setDelegate(e.target.value)}>
          <option value="">Choose a colleague</option>
          {people.map((u) => <option key={u!.id} value={u!.id!}>{u!.name}</option>)}
        </select>
        <label htmlFor={`${id}-days`}>For how long</label>
        <select id={`${id}-days`} value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {[1, 7, 14, 30].map((n) => <option key={n} value={n}>{n === 1 ? 'One day' : `${n} days`}</option>)}
        </select>
        <label htmlFor={`${id}-why`}>Reason (optional)</label>
        <input id={`${id}-why`} value={reason} onChange={(e) => setReason(e.target.value)} />
        <div className="actions"><button type="submit" disabled={create.fetching}>Delegate</button></div>
        {problem ? <p role="alert" className="problem">{problem}</p> : null}
      </form>
    </section>
  )
}
