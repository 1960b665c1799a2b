// Owns the session and the screens: the session (sessionStorage: api/session.ts), its renewal or a clean "sign in
// again" before the token expires, sign-out (at the identity provider too), the GraphQL client made for the token,
// and which screen an address shows. Screens live in screens/, shared pieces in components/, GraphQL in operations/
// (typed by codegen).
import { useCallback, useEffect, useMemo, useState } from 'react'
import { Provider } from 'urql'
import type { ConsoleConfig } from './api/config'
import { createApiClient } from './api/client'
import { loadSession, saveSession, type Session } from './api/session'
import { AuthProvider } from './api/auth'
import { CALLBACK_PATH, beginSignIn, endProviderSession, renew } from './api/oidc'
import { match, navigate, useLocation } from './router'
import { SignIn, SignInCallback } from './screens/sign-in'
import { Programs } from './screens/programs'
import { RoleHome } from './screens/role-home'
import { NotFound } from './screens/not-found'
import { StageGates } from './screens/stage-gates'
import { RecordScreen } from './screens/record'
import { Handoffs } from './screens/handoffs'
import { Skills } from './screens/skills'
import { Oversight } from './screens/oversight'
import { Shell } from './components/shell'
import { InterimNote } from './components/interim-note'
import { AREAS, RecordListScreen } from './screens/record-list'
import { ProgramSetup } from './screens/program-setup'
import { formatTime } from './format'

/** Renewal with a refresh token this long before expiry; without one, "sign in again" is offered this long before. */
const RENEW_BEFORE_MS = 60_000
const WARN_BEFORE_MS = 120_000

/** Where to go after signing in: a path of this site (the console's, or GraphiQL's, which is another page). */
function goTo(returnTo: string) {
  const path = returnTo.startsWith('/') && !returnTo.startsWith('//') ? returnTo : '/'
  if (/^\/graphiql(\/|\?|$)/.test(path)) location.assign(path)
  else navigate(path, { replace: true })
}

export function App({ config }: { config: ConsoleConfig }) {
  const [session, setSession] = useState<Session | null>(loadSession)
  const [ending, setEnding] = useState(false)
  const token = session?.token ?? ''
  const api = useMemo(() => createApiClient(config, token), [config, token])
  useEffect(() => () => api.dispose(), [api])
  const { pathname, search } = useLocation()

  const replaceSession = useCallback((next: Session | null) => {
    saveSession(next)
    setSession(next)
    setEnding(false)
  }, [])
  const signedIn = useCallback((next: Session, returnTo = '/') => {
    replaceSession(next)
    goTo(returnTo)
  }, [replaceSession])
  const signOut = useCallback(async () => {
    const previous = session
    replaceSession(null)
    // the provider's session ends too where it offers that; it sends the browser back to /sign-in
    if (previous?.source === 'provider' && config.signIn && await endProviderSession(config.signIn, previous)) return
    navigate('/sign-in', { replace: true })
  }, [config, session, replaceSession])
  const signInAgain = useCallback(() => {
    if (session?.source === 'provider' && config.signIn) void beginSignIn(config.signIn, { returnTo: location.pathname, loginHint: session.email })
    else void signOut()
  }, [config, session, signOut])

  // Before the token expires: renewed with the refresh token where the provider issued one, otherwise (or when
  // renewal fails) a line offers to sign in again; at expiry the gateway refuses it and the shell says so.
  useEffect(() => {
    if (!session?.expiresAt) return
    const left = session.expiresAt - Date.now()
    if (session.refreshToken && config.signIn) {
      const settings = config.signIn
      const timer = setTimeout(() => {
        renew(settings, session).then(replaceSession, () => setEnding(true))
      }, Math.max(0, left - RENEW_BEFORE_MS))
      return () => clearTimeout(timer)
    }
    const timer = setTimeout(() => setEnding(true), Math.max(0, left - WARN_BEFORE_MS))
    return () => clearTimeout(timer)
  }, [session, config, replaceSession])

  const signInPage = pathname === '/sign-in' || pathname === CALLBACK_PATH
  useEffect(() => {
    if (!token && !signInPage) navigate(`/sign-in?next=${encodeURIComponent(location.pathname)}`, { replace: true })
  }, [token, signInPage])

  if (pathname === CALLBACK_PATH) return <><SignInCallback config={config} onSignedIn={signedIn} /><InterimNote /></>
  if (pathname === '/sign-in' || !token) return <><SignIn config={config} next={search.get('next') ?? '/'} onSignedIn={signedIn} /><InterimNote /></>

  let screen = <NotFound />
  let params: Record<string, string> | null
  if (match('/', pathname)) screen = <Programs />
  else if ((params = match('/p/:slug/home', pathname))) screen = <RoleHome slug={params.slug} />
  else if ((params = match('/p/:slug/records/:id', pathname))) screen = <RecordScreen slug={params.slug} id={params.id} />
  else if ((params = match('/p/:slug/handoffs', pathname))) screen = <Handoffs slug={params.slug} />
  else if ((params = match('/p/:slug/skills', pathname))) screen = <Skills slug={params.slug} />
  else if ((params = match('/p/:slug/oversight', pathname))) screen = <Oversight slug={params.slug} />
  else if ((params = match('/p/:slug', pathname))) screen = <RoleHome slug={params.slug} />
  else if ((params = match('/p/:slug/stage-gates', pathname))) screen = <StageGates slug={params.slug} />
  else if ((params = match('/p/:slug/setup', pathname))) screen = <ProgramSetup slug={params.slug} />
  else if ((params = match('/p/:slug/:area', pathname)) && Object.hasOwn(AREAS, params.area)) screen = <RecordListScreen key={params.area} slug={params.slug} product={params.area} />

  return (
    <Provider value={api.client}>
      <AuthProvider value={{ config, session: session!, replaceSession }}>
        <Shell onSignOut={() => void signOut()} onSignInAgain={signInAgain}>
          {ending && session?.expiresAt ? (
            <p role="status" className="session-ending" data-testid="session-ending">
              Your sign-in ends at {formatTime(new Date(session.expiresAt).toISOString())}.{' '}
              <button type="button" onClick={signInAgain}>Sign in again</button>
            </p>
          ) : null}
          {screen}
        </Shell>
        <InterimNote />
      </AuthProvider>
    </Provider>
  )
}
