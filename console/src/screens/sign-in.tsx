// Sign in. With an identity provider configured (OIDC_ISSUER, OIDC_CLIENT_ID) the page sends the person there
// (authorization code with PKCE: api/oidc.ts) and /sign-in/callback completes it; in development without one the
// gateway lists the illustrative people and mints a token for the one chosen. Production without an identity provider
// has no sign-in here (docs/operators.md: identity provider and console sign-in).
import { useEffect, useRef, useState } from 'react'
import type { ConsoleConfig } from '../api/config'
import { devSignIn, listDevPeople, ServiceUnavailable, type DevPerson } from '../api/dev-sign-in'
import { SERVICE_UNAVAILABLE_SENTENCE } from '../api/errors'
import { beginSignIn, completeSignIn } from '../api/oidc'
import { developmentSession, type Session } from '../api/session'

type OnSignedIn = (session: Session, returnTo?: string) => void

export function SignIn({ config, next, onSignedIn }: { config: ConsoleConfig; next: string; onSignedIn: OnSignedIn }) {
  const [people, setPeople] = useState<DevPerson[] | null | undefined>(undefined)
  const [problem, setProblem] = useState('')
  const [busy, setBusy] = useState('')

  useEffect(() => {
    listDevPeople(config).then(setPeople, (e) => {
      setPeople(null)
      if (!config.signIn) setProblem(e instanceof ServiceUnavailable ? SERVICE_UNAVAILABLE_SENTENCE : 'The service cannot be reached. Check your connection and try again.')
    })
  }, [config])

  const choose = async (email: string) => {
    setBusy(email)
    setProblem('')
    try {
      onSignedIn(developmentSession(await devSignIn(config, email)), next)
    } catch {
      setProblem('Signing in did not work. Try again.')
    } finally {
      setBusy('')
    }
  }

  const withProvider = async () => {
    setBusy('provider')
    setProblem('')
    try {
      await beginSignIn(config.signIn!, { returnTo: next })
    } catch {
      setProblem('Your organisation\'s sign-in cannot be reached. Try again in a moment.')
      setBusy('')
    }
  }

  return (
    <main id="main" className="page narrow">
      <h1>Sign in</h1>
      {problem ? <p role="alert" className="problem">{problem}</p> : null}
      {config.signIn ? (
        <section aria-labelledby="provider-heading">
          <h2 id="provider-heading">Sign in with your organisation</h2>
          <p>Your organisation signs you in; you come back here afterwards.</p>
          <button type="button" disabled={Boolean(busy)} onClick={() => void withProvider()}>Sign in with your organisation</button>
        </section>
      ) : null}
      {people === undefined && !config.signIn ? <p role="status">Loading…</p> : null}
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
      {people === null && !config.signIn && !problem ? (
        <p data-testid="no-sign-in">Signing in is not set up for this workspace yet. Ask your administrator to connect your organisation's sign-in.</p>
      ) : null}
    </main>
  )
}

/** /sign-in/callback: the identity provider sent the browser back with a code; exchange it (state, nonce, PKCE checked). */
export function SignInCallback({ config, onSignedIn }: { config: ConsoleConfig; onSignedIn: OnSignedIn }) {
  const [problem, setProblem] = useState('')
  const started = useRef(false)
  useEffect(() => {
    if (started.current) return
    started.current = true
    if (!config.signIn) {
      setProblem('Signing in with your organisation is not set up here.')
      return
    }
    completeSignIn(config.signIn, new URL(location.href)).then(
      ({ session, returnTo }) => onSignedIn(session, returnTo),
      () => setProblem('Signing in did not finish. Try again.'),
    )
  }, [config, onSignedIn])
  return (
    <main id="main" className="page narrow">
      <h1>Sign in</h1>
      {problem
        ? <><p role="alert" className="problem">{problem}</p><p><a href="/sign-in">Sign in again</a></p></>
        : <p role="status">Signing you in…</p>}
    </main>
  )
}
