// Owns the development sign-in the console offers: GET /api/dev/people lists the illustrative people present here,
// POST /api/dev/sign-in mints a development token for one of them. Mounted only outside production and without an
// identity provider (AUTH_JWKS_URL): anywhere else these paths do not exist (404).
import express from 'express'
import type { Db } from '../core/database'
import { mintDevToken } from '../core/identity'
import { ILLUSTRATIVE } from '../core/database'
import { PERSONA_NAMES } from '../core/identity'

/** Only the illustrative people (@illustrative.example), so this never signs in as a real person of a shared database. */
function illustrativePeople() {
  return [
    ...ILLUSTRATIVE.users.map((p) => ({ email: p.email, name: p.name, personaName: PERSONA_NAMES[p.persona as keyof typeof PERSONA_NAMES] ?? p.persona })),
    { email: ILLUSTRATIVE.admin.email, name: ILLUSTRATIVE.admin.name, personaName: 'Organisation admin' },
  ]
}

export function devSignInRoutes(db: Db): express.Router {
  const router = express.Router()
  router.get('/api/dev/people', async (_req, res) => {
    const people = illustrativePeople()
    const present = new Set((await db.user.findMany({ where: { email: { in: people.map((p) => p.email) }, deactivatedAt: null }, select: { email: true } })).map((u) => u.email))
    res.set('Cache-Control', 'no-store').json({ people: people.filter((p) => present.has(p.email)) })
  })
  router.post('/api/dev/sign-in', express.json({ limit: '4kb' }), async (req, res) => {
    const email = typeof req.body?.email === 'string' ? req.body.email : ''
    const known = illustrativePeople().some((p) => p.email === email)
    const user = known ? await db.user.findUnique({ where: { email }, select: { id: true, email: true, deactivatedAt: true } }) : null
    if (!user || user.deactivatedAt) {
      res.status(404).json({ errors: [{ message: 'No illustrative person has this e-mail address here.', extensions: { code: 'NOT_FOUND' } }] })
      return
    }
    res.set('Cache-Control', 'no-store').json({ token: await mintDevToken(user, '12h') })
  })
  return router
}
