// Owns the model-backed harness's settings (issue 39; twin_model_settings): an organisation's default (scope
// 'organization') or one program's (scope the program id): which harness runs a trigger that names none, the provider,
// base URL and model, the API key (AES-256-GCM under the connection-secret key, bound to the organisation and scope, so a
// row's key cannot be copied onto another; write-only: never answered, logged or audited), the price table and the
// per-run limits. A program's row wins over its organisation's; with neither, the deterministic harness runs.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { TwinModelSettings } from '../../generated/prisma/client'
import { command, type DomainContext } from '../../core/jobs'
import { assertCan } from '../../core/identity'
import { assertEgressUrl } from '../../core/http'
import { forOrganization, type Db } from '../../core/database'
import { InvalidInput, NotFoundError } from '../../core/errors'
import { IdInput } from '../../core/text'
import { secretKey } from '../adapters'

/** The two tool-calling APIs: OpenAI-compatible chat completions (self-hosted servers too) and Anthropic Messages. */
export const MODEL_PROVIDERS = ['openai', 'anthropic'] as const
export type ModelProvider = (typeof MODEL_PROVIDERS)[number]
/** The registry key of the model-backed harness (harness/model.ts). */
export const MODEL_HARNESS_KEY = 'model'
export const ORGANIZATION_SCOPE = 'organization'

const httpUrl = z.string().max(500).url().refine((u) => /^https?:\/\//i.test(u), 'use an http(s) URL')

export const ModelSettingsInput = z.object({
  /** Absent: the organisation's default; given: that program's. */
  programId: IdInput.nullish(),
  defaultHarness: z.enum(['deterministic', MODEL_HARNESS_KEY]).default('deterministic'),
  provider: z.enum(MODEL_PROVIDERS),
  baseUrl: httpUrl.nullish(),
  model: z.string().trim().min(1).max(200),
  /** Write-only. Absent: the stored key stays; null: removed; a string: replaces it. */
  apiKey: z.string().min(1).max(4000).nullish(),
  inputUsdPerMtok: z.number().min(0).max(10_000).default(0),
  outputUsdPerMtok: z.number().min(0).max(10_000).default(0),
  maxTurns: z.number().int().min(1).max(100).default(8),
  maxToolCalls: z.number().int().min(0).max(500).default(24),
  maxTokens: z.number().int().min(100).max(10_000_000).default(200_000),
  maxSeconds: z.number().int().min(5).max(3600).default(300),
})

const VERSION = 'v1'
const aad = (organizationId: string, scope: string) => Buffer.from(`twin_model_settings:${organizationId}:${scope}`, 'utf8')

function sealKey(organizationId: string, scope: string, apiKey: string): { ciphertext: string; keyId: string } {
  const { key, keyId } = secretKey()
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(aad(organizationId, scope))
  const body = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()])
  return { ciphertext: [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':'), keyId }
}

/** The stored key, decrypted; errors name the settings, never the value. */
function openKey(row: Pick<TwinModelSettings, 'organizationId' | 'scope' | 'apiKeyCiphertext' | 'apiKeyId'>): string | null {
  if (!row.apiKeyCiphertext) return null
  const { key, keyId } = secretKey()
  if (row.apiKeyId && row.apiKeyId !== keyId) throw new Error('The model API key was stored under another connection-secret key; store it again.')
  const [version, iv, tag, body] = row.apiKeyCiphertext.split(':')
  try {
    if (version !== VERSION) throw new Error('version')
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'))
    decipher.setAAD(aad(row.organizationId, row.scope))
    decipher.setAuthTag(Buffer.from(tag, 'base64'))
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8')
  } catch {
    throw new Error('The model API key could not be decrypted; store it again.')
  }
}

/** What the API answers about settings: everything but the key, which reads only as set or not. */
export function describeModelSettings(row: TwinModelSettings) {
  return {
    programId: row.scope === ORGANIZATION_SCOPE ? null : row.scope, defaultHarness: row.defaultHarness, provider: row.provider,
    baseUrl: row.baseUrl, model: row.model, apiKeySet: Boolean(row.apiKeyCiphertext),
    inputUsdPerMtok: Number(row.inputUsdPerMtok), outputUsdPerMtok: Number(row.outputUsdPerMtok),
    maxTurns: row.maxTurns, maxToolCalls: row.maxToolCalls, maxTokens: row.maxTokens, maxSeconds: row.maxSeconds,
    updatedAt: row.updatedAt,
  }
}
export type ModelSettingsView = ReturnType<typeof describeModelSettings>

/**
 * Sets an organisation's (org.settings.update) or a program's (program.twins.manage) model settings, replacing them
 * whole except the key (kept unless given). Audited as twin_model_settings.update, naming whether the key changed.
 */
export const setTwinModelSettings = command({
  permission: (input) => (input.programId ? 'program.twins.manage' : 'org.settings.update'),
  input: ModelSettingsInput,
  load: async (q, input) => {
    if (!input.programId) return null
    const program = await q.program.findFirst({ where: { id: input.programId }, select: { id: true } })
    if (!program) throw new NotFoundError('Program', { field: 'programId' })
    return program
  },
  program: (input) => input.programId ?? null,
  audit: ['twin_model_settings.update'],
  async run(w, input): Promise<ModelSettingsView> {
    // The outbound address policy of connections (core/http/egress.ts): a private or reserved address needs EGRESS_ALLOW.
    assertEgressUrl(input.baseUrl, 'baseUrl')
    if (input.defaultHarness === MODEL_HARNESS_KEY && input.apiKey === null) throw InvalidInput.of('apiKey', 'The model harness needs an API key; keep or give one.')
    const organizationId = w.ctx.session.organizationId
    const scope = input.programId ?? ORGANIZATION_SCOPE
    const sealed = typeof input.apiKey === 'string' ? sealKey(organizationId, scope, input.apiKey) : input.apiKey === null ? { ciphertext: null, keyId: null } : undefined
    const data = {
      defaultHarness: input.defaultHarness, provider: input.provider, baseUrl: input.baseUrl ?? null, model: input.model,
      inputUsdPerMtok: input.inputUsdPerMtok, outputUsdPerMtok: input.outputUsdPerMtok,
      maxTurns: input.maxTurns, maxToolCalls: input.maxToolCalls, maxTokens: input.maxTokens, maxSeconds: input.maxSeconds,
      ...(sealed ? { apiKeyCiphertext: sealed.ciphertext, apiKeyId: sealed.keyId } : {}),
    }
    const row = await w.tx.twinModelSettings.upsert({
      where: { organizationId_scope: { organizationId, scope } },
      create: { organizationId, scope, ...data },
      update: data,
    })
    await w.audit('twin_model_settings.update', { type: input.programId ? 'program' : 'organization', id: input.programId ?? organizationId }, {
      provider: row.provider, model: row.model, base_url: row.baseUrl, default_harness: row.defaultHarness,
      api_key: sealed ? (sealed.ciphertext ? 'replaced' : 'removed') : 'kept',
    })
    return describeModelSettings(row)
  },
})

/** The settings in force for a program: its own row, else its organisation's; null when neither exists. */
async function settingsRow(db: Db, organizationId: string, programId: string | null): Promise<TwinModelSettings | null> {
  const rows = await forOrganization(db, organizationId).twinModelSettings.findMany({ where: { organizationId, scope: { in: programId ? [programId, ORGANIZATION_SCOPE] : [ORGANIZATION_SCOPE] } } })
  return rows.find((r) => r.scope === programId) ?? rows.find((r) => r.scope === ORGANIZATION_SCOPE) ?? null
}

/** What the API reads: the program's (or organisation's, programId null) own settings, the key never included. */
export async function twinModelSettings(db: Db, organizationId: string, programId: string | null): Promise<ModelSettingsView | null> {
  const row = await forOrganization(db, organizationId).twinModelSettings.findFirst({ where: { organizationId, scope: programId ?? ORGANIZATION_SCOPE } })
  return row ? describeModelSettings(row) : null
}

/**
 * Query.twinModelSettings: a program's own settings (program.twins.manage) or its organisation's (programId null;
 * org.settings.read); null when none are set. The key reads only as set or not.
 */
export async function readTwinModelSettings(ctx: DomainContext, programId: string | null): Promise<ModelSettingsView | null> {
  if (programId) assertCan(ctx.session, 'program.twins.manage', programId)
  else assertCan(ctx.session, 'org.settings.read', null)
  return twinModelSettings(ctx.db, ctx.session.organizationId, programId)
}

/** The harness a trigger without its own `harness` runs under: the program's default, its organisation's, or none. */
export async function defaultHarnessFor(db: Db, organizationId: string, programId: string | null): Promise<string | null> {
  return (await settingsRow(db, organizationId, programId))?.defaultHarness ?? null
}

/** What the model-backed harness runs with: the settings in force and the decrypted key. Only the harness calls it. */
export interface ModelRunSettings {
  provider: ModelProvider
  baseUrl: string | null
  model: string
  apiKey: string
  prices: { inputUsdPerMtok: number; outputUsdPerMtok: number }
  limits: { maxTurns: number; maxToolCalls: number; maxTokens: number; maxSeconds: number }
}

export async function modelRunSettings(db: Db, organizationId: string, programId: string | null): Promise<ModelRunSettings | null> {
  const row = await settingsRow(db, organizationId, programId)
  if (!row) return null
  const apiKey = openKey(row)
  if (!apiKey) return null
  return {
    provider: row.provider as ModelProvider, baseUrl: row.baseUrl, model: row.model, apiKey,
    prices: { inputUsdPerMtok: Number(row.inputUsdPerMtok), outputUsdPerMtok: Number(row.outputUsdPerMtok) },
    limits: { maxTurns: row.maxTurns, maxToolCalls: row.maxToolCalls, maxTokens: row.maxTokens, maxSeconds: row.maxSeconds },
  }
}
