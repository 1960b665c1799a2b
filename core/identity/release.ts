// Owns release flags: which release this deployment is, and whether the R4 gate list has passed.
import { env, type Release, RELEASES } from '../config'
import { PERSONA_VERSION_BY_RELEASE } from '../permissions'

export type ItemStatus = 'designed' | 'preview' | 'available'

/** Persona (permission catalogue) version in force for a release: the twins document's schedule (docs/contributors.md, Decisions). */
export function personaVersionFor(release: Release): number {
  return PERSONA_VERSION_BY_RELEASE[release]
}

export function currentRelease(): Release {
  return env().RELEASE
}

export function currentPersonaVersion(): number {
  return personaVersionFor(currentRelease())
}

/**
 * Whether the gate list that moves an item of `itemRelease` from designed to preview has passed: the connector
 * document's R1 gates for R1 items (the connectors), the R4 gate list for everything else (skills, memory tiers 1
 * and 2, workbench roles, the evidence panel). Flipping the flag is the release act; nothing computes it.
 */
export function gatePassedFor(itemRelease: Release): boolean {
  return itemRelease === 'R1' ? env().R1_GATE_PASSED : env().R4_GATE_PASSED
}

/**
 * Status of an item designed for `itemRelease`: later releases' items are reserved (null: never presented
 * as live); items of this release or earlier read designed until their gate passes, then preview.
 */
export function itemStatus(
  itemRelease: Release,
  flags: { release?: Release; gatePassed?: boolean; available?: boolean } = {},
): ItemStatus | null {
  const release = flags.release ?? env().RELEASE
  if (RELEASES.indexOf(itemRelease) > RELEASES.indexOf(release)) return null
  const gatePassed = flags.gatePassed ?? gatePassedFor(itemRelease)
  if (!gatePassed) return 'designed'
  return flags.available ? 'available' : 'preview'
}
