// The frame around every signed-in screen: a skip link, the person's name, sign out; once the sign-in has ended, sign in again.
import type { ReactNode } from 'react'
import { useQuery } from 'urql'
import { MeDocument } from '../generated/graphql'
import { Link } from '../router'
import { isSignedOut } from '../api/errors'

export function Shell({ children, onSignOut, onSignInAgain = onSignOut }: { children: ReactNode; onSignOut: () => void; onSignInAgain?: () => void }) {
  const [{ data, error }] = useQuery({ query: MeDocument })
  const me = data?.me
  if (isSignedOut(error)) {
    return (
      <main id="main" className="page">
        <h1>Your sign-in has ended</h1>
        <p><button type="button" onClick={onSignInAgain}>Sign in again</button></p>
      </main>
    )
  }
  return (
    <>
      <a className="skip" href="#main">Skip to content</a>
      <header className="top">
        <Link href="/" className="brand">Evidence workspace</Link>
        <div className="who">
          {me?.user?.name ? <span>{me.user.name}{me.organization?.name ? `, ${me.organization.name}` : ''}</span> : null}
          <button type="button" className="quiet" onClick={onSignOut}>Sign out</button>
        </div>
      </header>
      {children}
    </>
  )
}
