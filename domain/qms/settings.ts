// Owns a QMS connection's provider settings (connections.provider_settings): the client id header value (at most 100
// characters, validated when the connection is configured), the vault instance id the health check verifies, the
// integration user in use (sandbox in R1c, production at R2), the per-connection query template (role -> vault field),
// the lifecycle map (vendor label -> sop_versions.lifecycle_state) and the rendition type.
import { z } from 'zod'
import type { Connection } from '../../generated/prisma/client'

export const QMS_STATES = ['draft', 'in_review', 'effective', 'superseded', 'obsolete'] as const
export type QmsState = (typeof QMS_STATES)[number] | 'unmapped'

/** The specification's header name; the vault's own is X-VaultAPI-ClientID (VENDORS.md: accept the configured name). */
export const DEFAULT_CLIENT_ID_HEADER = 'X-QmsAPI-ClientID'
export const CLIENT_ID_MAX = 100

/** The fields the adapter reads, by role; the specification names the first six. */
export const DEFAULT_QUERY_TEMPLATE = {
  id: 'id',
  modified: 'version_modified_date__v',
  major: 'major_version_number__v',
  minor: 'minor_version_number__v',
  status: 'status__v',
  number: 'document_number__v',
  title: 'name__v',
  documentType: 'type__v',
  effectiveDate: 'effective_date__v',
  supersededDate: 'superseded_date__v',
  renditionHash: 'md5checksum__v',
  versionLabel: 'version_label__v',
} as const
export type TemplateRole = keyof typeof DEFAULT_QUERY_TEMPLATE
/** Roles whose field may be left out (null): the rules then fall back (first observation, successor, major.minor). */
export const OPTIONAL_ROLES: readonly TemplateRole[] = ['effectiveDate', 'supersededDate', 'versionLabel', 'renditionHash', 'title']

const field = z.string().regex(/^[a-z][a-z0-9_]{0,79}$/, 'a vault field name such as status__v')

export const QmsSettingsInput = z.object({
  clientId: z.string().trim().min(1, 'a client id is required').max(CLIENT_ID_MAX, `at most ${CLIENT_ID_MAX} characters`)
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, underscore and hyphen only'),
  clientIdHeader: z.string().regex(/^X-[A-Za-z0-9-]{1,60}$/, 'a header name starting with X-').nullish(),
  instanceId: z.string().trim().min(1).max(100),
  integrationUser: z.enum(['sandbox', 'production']),
  queryTemplate: z.object(Object.fromEntries(Object.keys(DEFAULT_QUERY_TEMPLATE).map((k) => [k, field.nullish()])) as Record<TemplateRole, z.ZodOptional<z.ZodNullable<typeof field>>>).partial().nullish(),
  lifecycleMap: z.array(z.object({ label: z.string().trim().min(1).max(200), state: z.enum(QMS_STATES) })).min(1, 'map at least one lifecycle label').max(200)
    .superRefine((rows, ctx) => {
      const seen = new Set<string>()
      rows.forEach((r, i) => {
        if (seen.has(r.label.toLowerCase())) ctx.addIssue({ code: 'custom', path: [i, 'label'], message: `label '${r.label}' is mapped twice` })
        seen.add(r.label.toLowerCase())
      })
    }),
  renditionType: z.string().regex(/^[a-z][a-z0-9_]{0,79}$/).nullish(),
})
export type QmsSettingsInputT = z.infer<typeof QmsSettingsInput>

export interface QmsSettings {
  client_id: string
  client_id_header: string
  instance_id: string
  integration_user: 'sandbox' | 'production'
  query_template: Record<TemplateRole, string | null>
  lifecycle_map: Record<string, (typeof QMS_STATES)[number]>
  rendition_type: string
  reconciled_at?: string | null
}

export function settingsFromInput(input: QmsSettingsInputT, previous: Partial<QmsSettings> = {}): QmsSettings {
  const template = { ...DEFAULT_QUERY_TEMPLATE } as Record<TemplateRole, string | null>
  for (const [k, v] of Object.entries(input.queryTemplate ?? {})) if (v !== undefined) template[k as TemplateRole] = v
  return {
    client_id: input.clientId,
    client_id_header: input.clientIdHeader ?? DEFAULT_CLIENT_ID_HEADER,
    instance_id: input.instanceId,
    integration_user: input.integrationUser,
    query_template: template,
    lifecycle_map: Object.fromEntries(input.lifecycleMap.map((r) => [r.label, r.state])),
    rendition_type: input.renditionType ?? 'viewable_rendition__v',
    reconciled_at: previous.reconciled_at ?? null,
  }
}

/** The stored settings, or null when the connection was never configured. */
export function qmsSettingsOf(c: Pick<Connection, 'providerSettings'>): QmsSettings | null {
  const s = (c.providerSettings ?? {}) as Partial<QmsSettings>
  if (!s.client_id || !s.instance_id || !s.query_template || !s.lifecycle_map) return null
  return s as QmsSettings
}

/** The state a vendor label maps to; labels compare without case, a label with no mapping yields unmapped. */
export function mapLabel(settings: Pick<QmsSettings, 'lifecycle_map'>, label: string | null | undefined): QmsState {
  if (!label) return 'unmapped'
  const hit = Object.entries(settings.lifecycle_map).find(([l]) => l.toLowerCase() === label.toLowerCase())
  return hit ? hit[1] : 'unmapped'
}

/** The QMS REST version has the form v{YY.N} (spec 000 §Versioning 3). */
export const QMS_API_VERSION = /^v\d{2}\.\d$/
