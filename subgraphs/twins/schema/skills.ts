// Skills in the twins subgraph: Query.skills, Query.skill (GET /skills, /skills/{key}) and Mutation.runSkill.
import { DomainError } from '../../../core/errors'
import { result, type Builder } from '../../shared/builder'
import { SKILL_INPUT_ERROR_CODES } from '../../../domain/skills'
import { runSkillForPerson, skillByKey, skillCatalogue, type SkillResultOut } from '../../../domain/skills'
import type { SkillValue } from '../../../domain/skills'
import { keysAsWords, outputInWords, stepInWords } from '../../../domain/skills'

type SkillOut = ReturnType<typeof skillCatalogue>[number]

export function addSkills(builder: Builder) {
  const SkillReference = builder.objectRef<SkillOut['references'][number]>('SkillReference').implement({
    fields: (t) => ({
      key: t.exposeString('key'),
      version: t.exposeString('version'),
      retrievedOn: t.exposeString('retrieved_on'),
      status: t.exposeString('status', { description: 'verified or to_verify' }),
      documentSha256: t.exposeString('document_sha256', {
        nullable: true,
        description: 'sha256 of the document (internal references: of their canonical constants); null while not recorded',
      }),
      statusLine: t.exposeString('status_line', {
        description: "The status in words: 'verified; document hash not recorded' when a verified document has no recorded hash",
      }),
    }),
  })
  const SkillValidation = builder.objectRef<SkillOut['validation'][number]>('SkillValidation').implement({
    description: "A published dataset with published results that the skill's golden tests reproduce: evidence that it computes what it says, not a guidance reference",
    fields: (t) => ({
      key: t.exposeString('key'),
      title: t.exposeString('title'),
      version: t.exposeString('version'),
      retrievedOn: t.exposeString('retrieved_on'),
      url: t.exposeString('url', { nullable: true }),
      constantsSha256: t.exposeString('constants_sha256', { description: 'sha256 of the canonical JSON of the data and reference results as transcribed' }),
      goldenTest: t.exposeString('golden_test', { description: 'Where the skill is run against this dataset' }),
      statusLine: t.exposeString('status_line', { description: 'The record in words' }),
    }),
  })
  const Skill = builder.objectRef<SkillOut>('Skill').implement({
    description: 'A deterministic, versioned procedure run on the server (SkillOut). No qualification is claimed.',
    fields: (t) => ({
      key: t.exposeString('key'),
      name: t.exposeString('name'),
      product: t.exposeString('product'),
      runRole: t.exposeString('run_role'),
      permission: t.exposeString('permission'),
      skillClass: t.exposeString('skill_class'),
      checkLogicVersion: t.exposeInt('check_logic_version'),
      inputSchema: t.field({ type: 'JSON', resolve: (s) => s.input_schema }),
      outputFields: t.exposeStringList('output_fields'),
      requiredCitations: t.exposeStringList('required_citations'),
      references: t.field({ type: [SkillReference], resolve: (s) => s.references }),
      validation: t.field({ type: [SkillValidation], description: 'The published datasets the skill is validated against (its validation record), shown beside its status', resolve: (s) => s.validation }),
      status: t.exposeString('status', { description: 'designed while R4_GATE_PASSED is false' }),
      release: t.exposeString('release'),
    }),
  })
  const NamedValue = builder.objectRef<{ name: string } & SkillValue>('SkillOutputValue').implement({
    fields: (t) => ({
      name: t.exposeString('name'),
      value: t.field({ type: 'JSON', resolve: (v) => v.value }),
      unitUcum: t.string({ nullable: true, resolve: (v) => v.unit_ucum ?? null }),
      unitDisplay: t.string({ nullable: true, resolve: (v) => v.unit_display ?? null }),
      display: t.string({ nullable: true, resolve: (v) => v.display ?? null }),
      label: t.string({ description: "The output in words ('Maximum recommended starting dose' for mrsd)", resolve: (v) => outputInWords(v.name, v).label }),
      text: t.string({ description: "The value as people read it, without its unit (the display's rounding); 'none given' for a value left out", resolve: (v) => outputInWords(v.name, v).text }),
      unit: t.string({ nullable: true, description: "The unit as people write it ('h·mg/L'); null for a pure number (never '1')", resolve: (v) => outputInWords(v.name, v).unit }),
    }),
  })
  const Step = builder.objectRef<ReturnType<typeof stepInWords>>('SkillComputedStep').implement({
    description: "One intermediate value of 'How this was computed', in words.",
    fields: (t) => ({
      label: t.exposeString('label'),
      text: t.exposeString('text', { description: "The value (6 significant figures), 'none given' for a value left out" }),
      unit: t.exposeString('unit', { nullable: true }),
      note: t.exposeString('note', { nullable: true }),
    }),
  })
  const SkillResult = builder.objectRef<SkillResultOut>('SkillResult').implement({
    description: 'SkillResultOut: the stored skill_result artifact of one run.',
    fields: (t) => ({
      artifactId: t.exposeID('artifact_id'),
      skillKey: t.exposeString('skill_key'),
      checkLogicVersion: t.exposeInt('check_logic_version'),
      inputsHash: t.exposeString('inputs_hash'),
      outputs: t.field({ type: 'JSON', description: 'Map of output name to SkillValue {value, unit_ucum, unit_display}', resolve: (r) => r.outputs }),
      outputValues: t.field({ type: [NamedValue], description: 'The same outputs as a list, in name order', resolve: (r) => Object.keys(r.outputs).sort().map((name) => ({ name, ...r.outputs[name] })) }),
      citations: t.field({ type: 'JSON', resolve: (r) => r.citations }),
      warnings: t.exposeStringList('warnings'),
      referenceRefs: t.field({ type: 'JSON', resolve: (r) => r.reference_refs }),
      guidanceVersion: t.string({ nullable: true, resolve: (r) => r.guidance_version }),
      retrievedOn: t.string({ nullable: true, resolve: (r) => r.retrieved_on }),
      methodLine: t.exposeString('method_line', { description: "'Method: <name> (<guidance>, retrieved <date>), version n'" }),
      header: t.string({ nullable: true, resolve: (r) => r.header }),
      howComputed: t.field({ type: 'JSON', description: "'How this was computed': intermediate values and rules applied", resolve: (r) => r.how_computed }),
      tables: t.field({ type: 'JSON', resolve: (r) => r.tables }),
      steps: t.field({ type: [Step], description: "'How this was computed': every intermediate value in words, in order", resolve: (r) => (r.how_computed?.intermediate_values ?? []).map(stepInWords) }),
      rulesApplied: t.stringList({ description: "'How this was computed': the rules applied, the skills' option keys as words", resolve: (r) => (r.how_computed?.rules_applied ?? []).map(keysAsWords) }),
      createdAt: t.field({ type: 'DateTime', resolve: (r) => new Date(r.created_at) }),
    }),
  })
  const SkillRunInput = builder.inputType('SkillRunInput', {
    fields: (t) => ({
      skillKey: t.string({ required: true }),
      inputs: t.field({ type: 'JSON', required: true }),
      citations: t.field({ type: 'JSON', required: false }),
    }),
  })

  builder.queryFields((t) => ({
    skills: t.field({ type: [Skill], description: 'GET /skills. Reserved (R5, R6) keys are never listed.', resolve: () => skillCatalogue() }),
    skill: t.field({ type: Skill, nullable: true, args: { key: t.arg.string({ required: true }) }, description: 'GET /skills/{key}', resolve: (_r, { key }) => skillByKey(key) }),
  }))
  /**
   * A skill names the offending value in its own terms (`noael[0].dose.unit` within `inputs`, `citations[0]`,
   * `skill_key`; the tool server reports them so); this mutation states them as paths in its SkillRunInput.
   */
  const asInputPath = (e: unknown) => {
    if (!(e instanceof DomainError) || !e.field || !(SKILL_INPUT_ERROR_CODES as readonly string[]).includes(e.code)) return e
    const f = e.field
    // the write's own fields (programId, skillKey, inputs, citations) are named as they are already
    const path = f === 'skill_key' ? 'skillKey' : /^(programId|skillKey|inputs|citations)(\[|\.|$)/.test(f) ? f : `inputs.${f}`
    return new DomainError(e.code, e.message, { field: path })
  }
  builder.mutationType({})
  builder.mutationFields((t) => ({
    runSkill: t.field({
      type: SkillResult,
      description: "POST /programs/{program_id}/skill-runs: synchronous; needs the skill's <product>.agents.use. Unit errors carry field.",
      errors: result(runSkillForPerson, 'skillResult'),
      args: { programId: t.arg.id({ required: true }), input: t.arg({ type: SkillRunInput, required: true }) },
      resolve: (_r, { programId, input }, ctx) =>
        runSkillForPerson(ctx, { programId: String(programId), skillKey: input.skillKey, inputs: input.inputs, citations: input.citations ?? undefined })
          .catch((e) => { throw asInputPath(e) }),
    }),
  }))
}
