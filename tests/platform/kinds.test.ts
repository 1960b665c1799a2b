import { describe, expect, it } from 'vitest'
import { agentRunKinds, approvalTargetTypes, artifactKinds, interruptKinds, notificationKinds, signatureTargetTypes, toneMap, TONES } from '../../core/config'
import { NOTIFICATION_KINDS_ADDED } from '../../core/jobs'
import { useStack, gql } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

const toneCounts = (release: Parameters<typeof toneMap>[0]) =>
  Object.fromEntries(TONES.map((tone) => [tone, toneMap(release).filter((e) => e.tone === tone).length]))

describe('kind counts pinned by release', () => {
  it('counts 11 run kinds before twins, 13 at R3 with twin_cycle and twin_handoff, 14 at R4 with stage_readiness', () => {
    expect(agentRunKinds('R2')).toHaveLength(11)
    expect(agentRunKinds('R3')).toHaveLength(13)
    expect(agentRunKinds('R3').slice(11)).toEqual(['twin_cycle', 'twin_handoff'])
    expect(agentRunKinds('R4')).toHaveLength(14)
    expect(agentRunKinds('R4')[13]).toBe('stage_readiness')
  })

  it('counts 4 interrupt kinds, 5 at R3 with batch_approval; write_approval is one of the four', () => {
    expect(interruptKinds('R2')).toHaveLength(4)
    expect(interruptKinds('R2')).toContain('write_approval')
    expect(interruptKinds('R3')).toHaveLength(5)
    expect(interruptKinds('R3')).toContain('batch_approval')
    expect(interruptKinds('R4')).toHaveLength(5)
  })

  it('counts 7 notification kinds, 12 at R3, 13 at R4, the additions being those the notifications module writes', () => {
    expect([notificationKinds('R2'), notificationKinds('R3'), notificationKinds('R4')].map((k) => k.length)).toEqual([7, 12, 13])
    expect(notificationKinds('R4').slice(7)).toEqual([...NOTIFICATION_KINDS_ADDED])
  })

  it('counts 10 artifact kinds, 11 at R3 with persona_brief, 12 at R4 with readiness_brief, skill_result in the base', () => {
    expect([artifactKinds('R2'), artifactKinds('R3'), artifactKinds('R4')].map((k) => k.length)).toEqual([10, 11, 12])
    expect(artifactKinds('R2')).toContain('skill_result')
    expect(artifactKinds('R3')[10]).toBe('persona_brief')
    expect(artifactKinds('R4')[11]).toBe('readiness_brief')
  })

  it('counts 3 signature and 5 approval target types, 4 and 6 at R4 with stage_gate', () => {
    expect([signatureTargetTypes('R3').length, signatureTargetTypes('R4').length]).toEqual([3, 4])
    expect([approvalTargetTypes('R3').length, approvalTargetTypes('R4').length]).toEqual([5, 6])
    expect(signatureTargetTypes('R4')).toContain('stage_gate')
    expect(approvalTargetTypes('R4')).toContain('stage_gate')
  })

  it('counts 56 tone entries, 61 at R3 (12 pass, 16 review, 7 fail, 4 info, 22 neutral) and 62 at R4 with reviewed as pass', () => {
    expect(toneMap('R2')).toHaveLength(56)
    expect(toneMap('R3')).toHaveLength(61)
    expect(toneCounts('R3')).toEqual({ pass: 12, review: 16, fail: 7, info: 4, neutral: 22 })
    expect(toneMap('R4')).toHaveLength(62)
    expect(toneCounts('R4')).toEqual({ pass: 13, review: 16, fail: 7, info: 4, neutral: 22 })
    expect(toneMap('R4').find((e) => e.status === 'reviewed')?.tone).toBe('pass')
    for (const [status, tone] of [['enabled', 'pass'], ['sent', 'review'], ['done', 'neutral'], ['snoozed', 'neutral'], ['revoked', 'neutral']]) {
      expect(toneMap('R3').find((e) => e.status === status)?.tone).toBe(tone)
      expect(toneMap('R2').find((e) => e.status === status)).toBeUndefined()
    }
  })

  it('names every status once in a tone map and every kind once in a set', () => {
    for (const r of ['R2', 'R3', 'R4'] as const) {
      expect(new Set(toneMap(r).map((e) => e.status)).size).toBe(toneMap(r).length)
      for (const set of [agentRunKinds(r), interruptKinds(r), notificationKinds(r), artifactKinds(r)]) expect(new Set(set).size).toBe(set.length)
    }
  })
})

describe('kinds and tone map through the gateway', () => {
  const stack = useStack()

  it('reads the kind sets and the tone map of a release read-only, for any authenticated person', async () => {
    const tenant = await createTenant(stack.db.db)
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, `{
      r3: kinds(release: R3) { release agentRunKinds interruptKinds notificationKinds artifactKinds signatureTargetTypes approvalTargetTypes }
      r4: kinds(release: R4) { agentRunKinds notificationKinds artifactKinds signatureTargetTypes approvalTargetTypes }
      current: kinds { release }
      tones3: toneMap(release: R3) { status tone }
      tones4: toneMap { status tone }
    }`, {}, await tenant.token('viewer'))
    expect(r.body.errors).toBeUndefined()
    const d = r.body.data
    expect(d.r3.release).toBe('R3')
    expect([d.r3.agentRunKinds, d.r3.interruptKinds, d.r3.notificationKinds, d.r3.artifactKinds, d.r3.signatureTargetTypes, d.r3.approvalTargetTypes].map((x: string[]) => x.length)).toEqual([13, 5, 12, 11, 3, 5])
    expect([d.r4.agentRunKinds, d.r4.notificationKinds, d.r4.artifactKinds, d.r4.signatureTargetTypes, d.r4.approvalTargetTypes].map((x: string[]) => x.length)).toEqual([14, 13, 12, 4, 6])
    expect(d.current.release).toBe('R4')
    expect(d.tones3).toHaveLength(61)
    expect(d.tones4).toHaveLength(62)
    expect(d.tones4).toContainEqual({ status: 'reviewed', tone: 'pass' })
  })

  it('refuses the kinds without a token', async () => {
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, '{ kinds { release } }')
    expect(r.status).toBe(401)
  })
})
