// The shape every skill module exports; registry.ts turns these into SkillDefinition / SkillOut.
import type { z } from 'zod'
import type { SkillComputation } from './result'

export type SkillClass = 'A' | 'B'
export type SkillProduct = 'evidence' | 'review'
export type SkillRunRole = 'evidence' | 'review'

// Each module spells out its own row of the specification's Skills table (key to method name), even where the tox
// skills share product, roles, class and version today: a role or version change is per skill, so the repeated
// lines are a catalogue to check against the table, not logic to share.
export interface SkillModule<S extends z.ZodType = z.ZodType> {
  key: string
  name: string
  product: SkillProduct
  run_role: SkillRunRole
  /** Owning workbench role (specification, Skills table). */
  workbench_role: string
  skill_class: SkillClass
  check_logic_version: number
  release: 'R4'
  input: S
  /** Output names; `<label>` stands for a caller-given row label. */
  output_fields: string[]
  /** Input paths that must carry a citation (`[*]` = every row). */
  required_citations: string[]
  /** Reference entries the skill uses (references.ts keys). */
  reference_keys: string[]
  /** Published datasets the skill's golden tests reproduce (validation.ts keys); shown beside its status. */
  validation_keys?: string[]
  /** The reference named in the method line and in guidance_version / retrieved_on, if any. */
  primary_reference: string | null
  /** Method name in the method line. */
  method_name: string
  /** Basis named in the method line when no guidance applies (e.g. the toolkit and its version). */
  method_basis?: () => string
  compute(input: z.output<S>): SkillComputation | Promise<SkillComputation>
}
