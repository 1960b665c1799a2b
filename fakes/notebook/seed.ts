// Illustrative demo content for the fake notebook: one app definition with a canvas feature, its client and a few entries.
import { appCanvasPart, sampleDays, textPart, link, tablePart } from './entries'
import type { FakeNotebookControl, RegisteredApp } from './server'

export interface SeedOptions {
  appDefinitionId?: string
  clientId?: string
  clientSecret?: string
  webhookUrl?: string
}

export interface SeedResult {
  app: RegisteredApp
  entryIds: string[]
  attachmentIds: string[]
}

export function seedIllustrative(control: FakeNotebookControl, options: SeedOptions = {}): SeedResult {
  const app = control.registerApp({
    appDefinitionId: options.appDefinitionId ?? 'appdef_illustrative',
    appId: 'app_illustrative',
    name: 'Evidence workspace',
    features: [{ id: 'feat_illustrative_sop_check', name: 'SOP check' }],
    webhookUrl: options.webhookUrl ?? '',
    client: { clientId: options.clientId ?? 'illustrative-client', clientSecret: options.clientSecret ?? 'illustrative-secret' },
  })

  const first = control.upsertEntry({ id: 'etr_illustrative_001', name: 'Buffer preparation', reviewStatus: 'IN_PROGRESS', days: [] })
  const exportFile = control.putAttachment(first.id, {
    id: 'exf_illustrative_001',
    name: 'plate-reader-export.csv',
    content: 'well,absorbance\nA1,0.112\nA2,0.118\n# illustrative data\n',
  })
  control.modifyEntry(first.id, {
    days: [
      ...sampleDays({ date: '2025-01-15', attachmentId: exportFile.id, variant: 1 }),
      { date: '2025-01-16', notes: [appCanvasPart(app.appId, app.featureId, 'cnvs_illustrative_001')] },
    ],
  })

  const second = control.upsertEntry({
    id: 'etr_illustrative_002',
    name: 'Stability pull, month 3',
    reviewStatus: 'NEEDS_REVIEW',
    days: [
      {
        date: '2025-02-03',
        notes: [
          textPart('Illustrative stability pull for @IllustrativeBatch-2 per the effective SOP.', [link('batch', 'bat_illustrative_2'), link('entry', first.id)]),
          tablePart('Illustrative assay results', 'Assay', ['Time point', 'Assay (%)', 'Impurity (%)'], [
            ['T0', '99.8', '0.10'],
            ['M3', '99.1', '0.21'],
          ]),
        ],
      },
    ],
  })

  const third = control.upsertEntry({
    id: 'etr_illustrative_003',
    name: 'Cell culture passage log',
    reviewStatus: 'ACCEPTED',
    days: sampleDays({ date: '2025-02-10', variant: 3 }),
  })

  return { app, entryIds: [first.id, second.id, third.id], attachmentIds: [exportFile.id] }
}
