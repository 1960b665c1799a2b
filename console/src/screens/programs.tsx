// The programs the person belongs to, each opening its role home.
import { useQuery } from 'urql'
import { MeDocument } from '../generated/graphql'
import { Link } from '../router'
import { describeError } from '../api/errors'

export function Programs() {
  const [{ data, fetching, error }] = useQuery({ query: MeDocument })
  const programs = (data?.me?.programs ?? []).filter((p) => p.program?.slug)
  return (
    <main id="main" className="page">
      <h1>Your programs</h1>
      {fetching && !data ? <p role="status">Loading your programs…</p> : null}
      {error ? <p role="alert" className="problem">{describeError(error)}</p> : null}
      {data && programs.length === 0 ? <p>You are not a member of any program yet.</p> : null}
      <ul className="cards">
        {programs.map(({ program }) => (
          <li key={program!.id} className="card">
            <Link href={`/p/${encodeURIComponent(program!.slug!)}/home`}>{program!.name}</Link>
            {program!.illustrative ? <p className="muted">Illustrative demo data</p> : null}
          </li>
        ))}
      </ul>
    </main>
  )
}
