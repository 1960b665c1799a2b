// Owns what screens need of the sign-in: whether a signature may be made now or needs a fresh sign-in first, and that
// step-up (21 CFR 11.200): at the identity provider, a new sign-in (prompt=login) and back to the same place, the
// signature form open again; in development, the person's confirmation, which mints a new development token.
import { createContext, useContext, type ReactNode } from 'react'
import type { ConsoleConfig } from './config'
import { beginSignIn } from './oidc'
import { developmentSession, type Session } from './session'
import { devSignIn } from './dev-sign-in'

/** What a signature form asked for before the page went to the provider: reopened when the page comes back. */
const PENDING_KEY = 'console:pending-signature'
/** A sign-in this close to the limit (30 s, or a quarter of a short limit) is stepped up first, so the signature does not cross it while the form is open. */
const marginSeconds = (maxAgeSeconds: number) => Math.min(30, maxAgeSeconds / 4)

export interface PendingSignature {
  /** Which form: e.g. `gate:<id>:review`. */
  key: string
  comment: string
}

export interface Auth {
  config: ConsoleConfig
  session: Session
  /** Replace the session (a fresh sign-in in development). */
  replaceSession(next: Session): void
}

const AuthContext = createContext<Auth | null>(null)

export function AuthProvider({ value, children }: { value: Auth; children: ReactNode }) {
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>
}

export interface SignatureStepUp {
  /** The sign-in is recent enough for a signature. */
  fresh: boolean
  /** 'provider': a new sign-in at the identity provider; 'confirm': development asks the person to confirm. */
  mode: 'provider' | 'confirm'
  /** Step up; at the provider the page leaves (and the form comes back through `pending`). */
  stepUp(pending: PendingSignature): Promise<void>
}

export function isFreshEnough(session: Session, maxAgeSeconds: number, now = Date.now()): boolean {
  return session.authTime !== null && now / 1000 - session.authTime <= maxAgeSeconds - marginSeconds(maxAgeSeconds)
}

export function useSignatureStepUp(): SignatureStepUp {
  const auth = useContext(AuthContext)
  if (!auth) throw new Error('useSignatureStepUp outside AuthProvider')
  const { config, session, replaceSession } = auth
  const provider = session.source === 'provider' && config.signIn
  return {
    fresh: isFreshEnough(session, config.signatureMaxAgeSeconds),
    mode: provider ? 'provider' : 'confirm',
    async stepUp(pending) {
      if (provider) {
        sessionStorage.setItem(PENDING_KEY, JSON.stringify({ ...pending, path: location.pathname }))
        await beginSignIn(config.signIn!, { returnTo: location.pathname, fresh: true, loginHint: session.email })
        return
      }
      if (!session.email) throw new Error('no e-mail address to confirm')
      replaceSession(developmentSession(await devSignIn(config, session.email)))
    },
  }
}

/** The signature form that sent the page to the provider, when the page is back at the same place (read once). */
export function takePendingSignature(key: string): PendingSignature | null {
  try {
    const raw = sessionStorage.getItem(PENDING_KEY)
    if (!raw) return null
    const pending = JSON.parse(raw) as PendingSignature & { path: string }
    if (pending.key !== key || pending.path !== location.pathname) return null
    sessionStorage.removeItem(PENDING_KEY)
    return { key: pending.key, comment: pending.comment }
  } catch {
    return null
  }
}
