// Owns the development sign-in: the gateway lists the illustrative people and mints a token for the chosen one. Both
// routes exist only in development without an identity provider; a 404 means the identity provider signs people in.
import type { ConsoleConfig } from './config'

/** The gateway answered 503: the service is there but cannot serve (its database is stopped or restarting). */
export class ServiceUnavailable extends Error {
  constructor() { super('service unavailable') }
}

export interface DevPerson {
  email: string
  name: string
  /** The persona (or organisation persona) name, e.g. 'Program owner'. */
  personaName: string
}

/** The illustrative people, or null where development sign-in does not exist. */
export async function listDevPeople(config: ConsoleConfig): Promise<DevPerson[] | null> {
  const res = await fetch(`${config.gatewayUrl}/api/dev/people`, { headers: { accept: 'application/json' } })
  if (res.status === 404) return null
  if (res.status === 503) throw new ServiceUnavailable()
  if (!res.ok) throw new Error('people unavailable')
  return ((await res.json()) as { people: DevPerson[] }).people
}

export async function devSignIn(config: ConsoleConfig, email: string): Promise<string> {
  const res = await fetch(`${config.gatewayUrl}/api/dev/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email }),
  })
  if (!res.ok) throw new Error('sign-in refused')
  return ((await res.json()) as { token: string }).token
}
