// Literature search in the connectors subgraph: Program.literatureSearch (evidence.literature.search in the program),
// a cursor page of clusters (25 per query at most) with provenance, licence and what may be shown under it, plus the
// per-source status and the policy's steps. Resolvers translate; domain/literature decides.
import type { Builder } from '../../shared/builder'
import { connectionType } from '../../shared/connection'
import type { Page } from '../../../core/database'
import type { Provenance } from '../../../domain/literature'
import type { Rendering } from '../../../domain/literature'
import type { ClusterOut, PolicyStep, SourceStatus } from '../../../domain/literature'
import { searchLiterature, type LiteraturePage } from '../../../domain/literature'
import { EXCLUDED_SOURCES } from '../../../domain/literature'
import { checkInclude, type KnowledgeRecord } from '../../../domain/literature'
import type { ConnectorsRefs } from './refs'

export function addLiterature(builder: Builder, { ProgramRef }: ConnectorsRefs) {
  const ProvenanceRef = builder.objectRef<Provenance>('LiteratureProvenance').implement({
    description: "One provider's view of a cluster: its ids in its own schemes and its snapshot stamp.",
    fields: (t) => ({
      provider: t.exposeString('provider'),
      ids: t.field({ type: 'JSON', description: 'Scheme to id (PMID, PMCID, DOI, PPR, W-id).', resolve: (p) => p.ids }),
      snapshotField: t.string({ nullable: true, description: 'retrieved_at, dataTimestamp, meta.last_updated, meta.dataVersion or <bioactivity>_db_version; null where the source has none.', resolve: (p) => p.snapshot?.field ?? null }),
      snapshotValue: t.string({ nullable: true, resolve: (p) => p.snapshot?.value ?? null }),
      licence: t.string({ nullable: true, description: 'This provider\'s licence reading.', resolve: (p) => p.licence?.licence ?? null }),
      licenceField: t.string({ nullable: true, resolve: (p) => p.licence?.field ?? null }),
    }),
  })
  const RenderingRef = builder.objectRef<Rendering>('LiteratureRendering').implement({
    description: 'What may be shown: full text only under cc0, cc_by and cc_by_sa (with the share-alike notice); metadata and a link otherwise.',
    fields: (t) => ({
      mode: t.exposeString('mode', { description: 'full_text or metadata' }),
      fullText: t.string({ nullable: true, resolve: (r) => r.fullText }),
      link: t.string({ nullable: true, resolve: (r) => r.link }),
      notice: t.string({ nullable: true, resolve: (r) => r.notice }),
    }),
  })
  const ClusterRef = builder.objectRef<ClusterOut>('LiteratureCluster').implement({
    description: 'One work across sources, keyed by its DOI when known (PMID, PMCID, PPR and W-id are aliases). Outside text, sanitised.',
    fields: (t) => ({
      clusterKey: t.exposeString('clusterKey', { description: 'What a record cites (citation kind literature_cluster).' }),
      aliases: t.exposeStringList('aliases'),
      sourceSystem: t.string({ resolve: () => 'literature_search' }),
      title: t.string({ nullable: true, resolve: (c) => c.title }),
      abstract: t.string({ nullable: true, resolve: (c) => c.abstract }),
      year: t.int({ nullable: true, resolve: (c) => c.year }),
      venue: t.string({ nullable: true, resolve: (c) => c.venue }),
      url: t.string({ nullable: true, resolve: (c) => c.url }),
      citedByCount: t.int({ nullable: true, resolve: (c) => c.citedByCount }),
      licence: t.exposeString('licence', { description: 'cc0, cc_by, cc_by_sa, cc_by_nd, cc_by_nc, cc_by_nc_sa, cc_by_nc_nd, other or unknown (never guessed open).' }),
      isPreprint: t.exposeBoolean('isPreprint'),
      successorKey: t.string({ nullable: true, description: "A preprint's published version, from the index's PPR record.", resolve: (c) => c.successorKey }),
      provenance: t.field({ type: [ProvenanceRef], resolve: (c) => c.provenance }),
      rendering: t.field({ type: RenderingRef, resolve: (c) => c.rendering }),
      sanitised: t.field({ type: 'JSON', description: 'What the outside-content sanitiser neutralised, per field.', resolve: (c) => c.sanitised }),
    }),
  })
  const SourceStatusRef = builder.objectRef<SourceStatus>('LiteratureSourceStatus').implement({
    fields: (t) => ({
      source: t.exposeString('source'),
      status: t.exposeString('status', { description: 'ok, failed, rate_limited, skipped or not_configured' }),
      detail: t.string({ nullable: true, description: "Why not ok (a RateLimited reads 'budget exhausted for source X, retry after N s')", resolve: (s) => s.detail }),
      records: t.exposeInt('records'),
      retryAfterSeconds: t.int({ nullable: true, resolve: (s) => s.retryAfterSeconds }),
    }),
  })
  const StepRef = builder.objectRef<PolicyStep>('LiteratureStep').implement({
    description: 'One step of the query policy, as the run rail shows it.',
    fields: (t) => ({
      step: t.exposeString('step'), source: t.exposeString('source'), label: t.exposeString('label'),
      status: t.exposeString('status'), detail: t.exposeString('detail'), ms: t.exposeInt('ms'),
    }),
  })
  const KnowledgeRef = builder.objectRef<KnowledgeRecord>('LiteratureKnowledgeRecord').implement({
    description: 'An object of a knowledge source the query asked for (trial, safety report, target or disease, compound), with its scheme and snapshot stamp. Outside text, sanitised.',
    fields: (t) => ({
      source: t.exposeString('source', { description: 'trial_registry, drug_safety, target_disease or bioactivity' }),
      scheme: t.exposeString('scheme', { description: 'NCT, report id, gene id, ontology term id or compound id' }),
      id: t.exposeString('id'),
      ids: t.field({ type: 'JSON', description: 'Scheme to id (NDC and InChIKey besides the primary one).', resolve: (k) => k.ids }),
      title: t.string({ nullable: true, resolve: (k) => k.title }),
      summary: t.string({ nullable: true, resolve: (k) => k.summary }),
      url: t.string({ nullable: true, resolve: (k) => k.url }),
      snapshotField: t.string({ resolve: (k) => k.snapshot.field }),
      snapshotValue: t.string({ resolve: (k) => k.snapshot.value }),
      sanitised: t.field({ type: 'JSON', resolve: (k) => k.sanitised }),
    }),
  })
  const Page = connectionType(builder, 'LiteratureCluster', ClusterRef, 'A page of literature clusters in the order the European literature index ranked them.')
  builder.objectFields(Page, (t) => ({
    hitCount: t.int({ resolve: (p: Page<ClusterOut>) => (p as LiteraturePage).outcome.hitCount }),
    sources: t.field({ type: [SourceStatusRef], resolve: (p: Page<ClusterOut>) => (p as LiteraturePage).outcome.sources }),
    steps: t.field({ type: [StepRef], resolve: (p: Page<ClusterOut>) => (p as LiteraturePage).outcome.steps }),
    knowledge: t.field({ type: [KnowledgeRef], description: 'Records of the knowledge sources asked for in `include` (first page only).', resolve: (p: Page<ClusterOut>) => (p as LiteraturePage).outcome.knowledge }),
    excludedSources: t.field({ type: 'JSON', description: 'Source kinds left out, with their stated reasons.', resolve: () => EXCLUDED_SOURCES }),
  }))

  builder.objectField(ProgramRef, 'literatureSearch', (t) =>
    t.field({
      type: Page,
      description: 'Searches the open literature sources (evidence.literature.search); draws from the platform budgets with the organisation\'s fair share. An exhausted budget is RateLimited.',
      args: {
        query: t.arg.string({ required: true }),
        first: t.arg.int({ required: false, description: '1 to 25 (default 25: the results per query)' }),
        after: t.arg.string({ required: false }),
        include: t.arg.stringList({ required: false, description: 'Knowledge sources to search as well, as optional policy steps: trial_registry, drug_safety, target_disease, bioactivity.' }),
      },
      resolve: (p, a, ctx) => searchLiterature(ctx, p.id, { query: a.query, first: a.first, after: a.after, include: checkInclude(a.include) }),
    }))
}
