// Query.twinModelSettings and Mutation.setTwinModelSettings: the model-backed harness's settings of a program
// (program.twins.manage) or its organisation (org.settings.read / org.settings.update), domain/twins/model-settings.ts.
// The API key is write-only: it is taken by the mutation and answered only as apiKeySet.
import { result, type Builder } from '../../shared/builder'
import { readTwinModelSettings, setTwinModelSettings, type ModelSettingsView } from '../../../domain/twins'

export function addModelSettings(builder: Builder) {
  const Settings = builder.objectRef<ModelSettingsView>('TwinModelSettings').implement({
    description: "The model-backed harness's settings of a program or an organisation. The API key is never answered.",
    fields: (t) => ({
      programId: t.id({ nullable: true, description: 'Null: the organisation\'s default.', resolve: (s) => s.programId }),
      defaultHarness: t.exposeString('defaultHarness', { description: 'deterministic or model: the harness of a trigger whose spec names none.' }),
      provider: t.exposeString('provider', { description: 'openai (chat completions, also self-hosted servers) or anthropic (Messages).' }),
      baseUrl: t.string({ nullable: true, resolve: (s) => s.baseUrl }),
      model: t.exposeString('model'),
      apiKeySet: t.exposeBoolean('apiKeySet', { description: 'Whether an API key is stored (encrypted; never answered).' }),
      inputUsdPerMtok: t.exposeFloat('inputUsdPerMtok', { description: 'USD per million input tokens.' }),
      outputUsdPerMtok: t.exposeFloat('outputUsdPerMtok', { description: 'USD per million output tokens.' }),
      maxTurns: t.exposeInt('maxTurns'),
      maxToolCalls: t.exposeInt('maxToolCalls'),
      maxTokens: t.exposeInt('maxTokens'),
      maxSeconds: t.exposeInt('maxSeconds'),
      updatedAt: t.field({ type: 'DateTime', resolve: (s) => s.updatedAt }),
    }),
  })
  const Input = builder.inputType('TwinModelSettingsInput', {
    fields: (t) => ({
      programId: t.id({ description: "Absent: the organisation's default (org.settings.update); given: that program's (program.twins.manage)." }),
      defaultHarness: t.string({ description: 'deterministic (the default) or model.' }),
      provider: t.string({ required: true }),
      baseUrl: t.string(),
      model: t.string({ required: true }),
      apiKey: t.string({ description: 'Write-only. Absent: the stored key stays; null: removed.' }),
      inputUsdPerMtok: t.float(), outputUsdPerMtok: t.float(),
      maxTurns: t.int(), maxToolCalls: t.int(), maxTokens: t.int(), maxSeconds: t.int(),
    }),
  })
  builder.queryFields((t) => ({
    twinModelSettings: t.field({
      type: Settings, nullable: true,
      description: "A program's model settings (program.twins.manage), or its organisation's when programId is absent (org.settings.read); null when none are set.",
      args: { programId: t.arg.id() },
      resolve: (_r, { programId }, ctx) => readTwinModelSettings(ctx, programId ? String(programId) : null),
    }),
  }))
  builder.mutationFields((t) => ({
    setTwinModelSettings: t.field({
      type: Settings, errors: result(setTwinModelSettings, 'settings'),
      description: "Sets a program's (program.twins.manage) or the organisation's (org.settings.update) model settings, replacing them whole except the API key.",
      args: { input: t.arg({ type: Input, required: true }) },
      resolve: (_r, { input }, ctx) => {
        // Absent fields take their defaults; apiKey keeps the difference between absent (keep) and null (remove).
        const given = Object.fromEntries(Object.entries(input).filter(([k, v]) => v !== null || k === 'apiKey'))
        return setTwinModelSettings(ctx, given as Parameters<typeof setTwinModelSettings>[1])
      },
    }),
  }))
}
