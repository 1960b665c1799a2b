// The seeded twin capabilities (issue 29, item 4) read through the gateway: each with its context of use, limitations
// and risk class, under its own key, and implemented by a duty template a twin can hold.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { DUTY_TEMPLATES } from '../../subgraphs/twins/harness/duties'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
let tenant: Tenant
beforeAll(async () => { tenant = await createTenant(db(), 'Capabilities') })

const FIELDS = 'key name release dutyKey personas contextOfUse limitations riskClass riskRationale'

describe('seeded twin capabilities', () => {
  it('lists the three seeded capabilities, each with a context of use, limitations and a risk class', async () => {
    const r = await gql(url(), `{ twinCapabilities { ${FIELDS} } }`, {}, await tenant.token('viewer'))
    expect(r.body.errors).toBeUndefined()
    const caps = r.body.data.twinCapabilities as { key: string; dutyKey: string; personas: string[]; contextOfUse: string; limitations: string[]; riskClass: string; riskRationale: string; release: string }[]
    expect(caps.map((c) => c.key)).toEqual(['console.twin_literature_watch', 'console.twin_handoff', 'review.twin_check_triage'])
    for (const c of caps) {
      expect(c.release).toBe('R3')
      expect(c.contextOfUse.length).toBeGreaterThan(40)
      expect(c.limitations.length).toBeGreaterThanOrEqual(3)
      expect(['low', 'medium', 'high']).toContain(c.riskClass)
      expect(c.riskRationale).toMatch(/Model influence .*Decision consequence/)
      // implemented by a duty template the harness runs
      expect(DUTY_TEMPLATES[c.dutyKey]).toBeDefined()
      expect(c.personas.length).toBeGreaterThan(0)
    }
    expect(caps.find((c) => c.key === 'review.twin_check_triage')).toMatchObject({ dutyKey: 'qa_check_triage', riskClass: 'medium', personas: expect.arrayContaining(['quality_reviewer']) })
  })

  it('answers one capability by its key, and null for a key that is not seeded', async () => {
    const token = await tenant.token('quality_reviewer')
    const one = await gql(url(), `query($k: String!) { twinCapability(key: $k) { key dutyKey riskClass limitations } }`, { k: 'review.twin_check_triage' }, token)
    expect(one.body.data.twinCapability).toMatchObject({ key: 'review.twin_check_triage', dutyKey: 'qa_check_triage', riskClass: 'medium' })
    const none = await gql(url(), `query($k: String!) { twinCapability(key: $k) { key } }`, { k: 'qa_check_triage' }, token)
    expect(none.body).toEqual({ data: { twinCapability: null } })
  })
})
