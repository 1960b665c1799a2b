// Owns the session and the screens: the token (sessionStorage), the GraphQL client made for it, and which screen an
// address shows. Screens live in screens/, shared pieces in components/, GraphQL in operations/ (typed by codegen).
import { useCallback, useEffect, useMemo, useState } from 'react'
import { Provider } from 'urql'
import type { ConsoleConfig } from './api/config'
import { createApiClient } from './api/client'
import { loadToken, saveToken } from './api/session'
import { match, navigate, useLocation } from './router'
import { SignIn } from './screens/sign-in'
import { Programs } from './screens/programs'
import { RoleHome } from './screens/role-home'
import { NotFound } from './screens/not-found'
import { StageGates } from './screens/stage-gates'
import { RecordScreen } from './screens/record'
import { Handoffs } from './screens/handoffs'
import { Skills } from './screens/skills'
import { Shell } from './components/shell'
import { InterimNote } from './components/interim-note'
import { AREAS, RecordListScreen } from './screens/record-list'
import { ProgramSetup } from './screens/program-setup'

export function App({ config }: { config: ConsoleConfig }) {
  const [token, setToken] = useState(loadToken)
  const api = useMemo(() => createApiClient(config, token), [config, token])
  useEffect(() => () => api.dispose(), [api])
  const { pathname } = useLocation()

  const signIn = useCallback((next: string) => {
    saveToken(next)
    setToken(next)
    navigate('/', { replace: true })
  }, [])
  const signOut = useCallback(() => {
    saveToken('')
    setToken('')
    navigate('/sign-in', { replace: true })
  }, [])

  useEffect(() => {
    if (!token && pathname !== '/sign-in') navigate('/sign-in', { replace: true })
  }, [token, pathname])

  if (pathname === '/sign-in' || !token) return <><SignIn config={config} onSignedIn={signIn} /><InterimNote /></>

  let screen = <NotFound />
  let params: Record<string, string> | null
  if (match('/', pathname)) screen = <Programs />
  else if ((params = match('/p/:slug/home', pathname))) screen = <RoleHome slug={params.slug} />
  else if ((params = match('/p/:slug/records/:id', pathname))) screen = <RecordScreen slug={params.slug} id={params.id} />
  else if ((params = match('/p/:slug/handoffs', pathname))) screen = <Handoffs slug={params.slug} />
  else if ((params = match('/p/:slug/skills', pathname))) screen = <Skills slug={params.slug} />
  else if ((params = match('/p/:slug', pathname))) screen = <RoleHome slug={params.slug} />
  else if ((params = match('/p/:slug/stage-gates', pathname))) screen = <StageGates slug={params.slug} />
  else if ((params = match('/p/:slug/setup', pathname))) screen = <ProgramSetup slug={params.slug} />
  else if ((params = match('/p/:slug/:area', pathname)) && Object.hasOwn(AREAS, params.area)) screen = <RecordListScreen key={params.area} slug={params.slug} product={params.area} />

  return (
    <Provider value={api.client}>
      <Shell onSignOut={signOut}>{screen}</Shell>
      <InterimNote />
    </Provider>
  )
}
