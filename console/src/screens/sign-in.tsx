// Sign in. In development (no identity provider) the gateway lists the illustrative people and mints a token for the
// one chosen; elsewhere those routes answer 404 and the page offers to paste an access token from the identity
// provider until the authorization-code sign-in is wired (docs/operators.md: identity provider and console sign-in).
import { useEffect, useState, type FormEvent } from 'react'
import type { ConsoleConfig } from '../api/config'
import { devSignIn, listDevPeople, ServiceUnavailable, type DevPerson } from '../api/dev-sign-in'
import { SERVICE_UNAVAILABLE_SENTENCE } from '../api/errors'

export function SignIn({ config, onSignedIn }: { config: ConsoleConfig; onSignedIn: (token: string) => void }) {
  const [people, setPeople] = useState<DevPerson[] | null | undefined>(undefined)
  const [problem, setProblem] = useState('')
  const [busy, setBusy] = useState('')
  const [pasted, setPasted] = useState('')

  useEffect(() => {
    listDevPeople(config).then(setPeople, (e) => {
      setPeople(null)
      setProblem(e instanceof ServiceUnavailable ? SERVICE_UNAVAILABLE_SENTENCE : 'The service cannot be reached. Check your connection and try again.')
    })
  }, [config])

  const choose = async (email: string) => {
    setBusy(email)
    setProblem('')
    try {
      onSignedIn(await devSignIn(config, email))
    } catch {
      setProblem('Signing in did not work. Try again.')
    } finally {
      setBusy('')
    }
  }

  const submitToken = (e: FormEvent) => {
    e.preventDefault()
    const token = pasted.trim().replace(/^Bearer\s+/i, '')
    if (token) onSignedIn(token)
  }

  return (
    <main id="main" className="page narrow">
      <h1>Sign in</h1>
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
      {people === undefined ? <p role="status">Loading…</p> : null}
      {people ? (
        <section aria-labelledby="people-heading">
          <h2 id="people-heading">Choose a person from the illustrative program</h2>
          <p className="muted">Development only: these people exist in the demo data, and this list never exists in production.</p>
          <ul className="people">
            {people.map((p) => (
              <li key={p.email}>
                <button type="button" className="person" disabled={Boolean(busy)} onClick={() => void choose(p.email)}>
                  <span className="name">{p.name}</span>
                  <span className="muted">{p.personaName}, {p.email}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {people === null ? (
        <section aria-labelledby="token-heading">
          <h2 id="token-heading">Sign in with your organisation</h2>
          <p>Your organisation signs you in. Paste the access token your identity provider gave you.</p>
          <form onSubmit={submitToken} className="stack">
            <label htmlFor="token">Access token</label>
            <input id="token" type="password" autoComplete="off" value={pasted} onChange={(e) => setPasted(e.target.value)} />
            <button type="submit" disabled={!pasted.trim()}>Sign in</button>
          </form>
        </section>
      ) : null}
    </main>
  )
}
