-- CreateTable
CREATE TABLE "program_records" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "record_type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "fields" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "source_id" UUID,
    "experiment_id" UUID,
    "created_by_user_id" UUID NOT NULL,
    "updated_by_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "program_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "program_record_versions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "record_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "change" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "fields" JSONB NOT NULL,
    "citations" JSONB NOT NULL DEFAULT '[]',
    "outcome" TEXT,
    "note" TEXT,
    "proposal_id" UUID,
    "proposed_by_user_id" UUID,
    "proposed_by_twin_id" UUID,
    "run_id" UUID,
    "decided_by_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "program_record_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "record_citations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "record_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "cited_kind" TEXT NOT NULL,
    "source_id" UUID,
    "document_id" UUID,
    "cluster_key" TEXT,
    "locator" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "record_citations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "program_records_experiment_id_key" ON "program_records"("experiment_id");

-- CreateIndex
CREATE INDEX "program_records_organization_id_program_id_created_at_id_idx" ON "program_records"("organization_id", "program_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "program_records_program_id_record_type_created_at_id_idx" ON "program_records"("program_id", "record_type", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "program_record_versions_record_id_version_key" ON "program_record_versions"("record_id", "version");

-- CreateIndex
CREATE INDEX "record_citations_record_id_position_idx" ON "record_citations"("record_id", "position");

-- AddForeignKey
ALTER TABLE "program_records" ADD CONSTRAINT "program_records_program_id_fkey" FOREIGN KEY ("program_id") REFERENCES "programs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "program_records" ADD CONSTRAINT "program_records_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "program_records" ADD CONSTRAINT "program_records_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "program_record_versions" ADD CONSTRAINT "program_record_versions_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "program_records"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "record_citations" ADD CONSTRAINT "record_citations_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "program_records"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "record_citations" ADD CONSTRAINT "record_citations_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "record_citations" ADD CONSTRAINT "record_citations_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Hand-written: what Prisma does not model.
ALTER TABLE "program_records" ADD CONSTRAINT "program_records_record_type_check" CHECK ("record_type" IN (
  'evidence.hypotheses', 'evidence.findings', 'evidence.questions', 'evidence.gaps', 'evidence.sources',
  'plans.experiments', 'plans.protocols', 'plans.plans', 'plans.reports',
  'progress.milestones', 'progress.dependencies', 'progress.open_items', 'progress.approvals',
  'review.findings', 'review.deviations'));
ALTER TABLE "program_records" ADD CONSTRAINT "program_records_version_check" CHECK ("version" >= 1);
ALTER TABLE "program_records" ADD CONSTRAINT "program_records_title_check" CHECK (length(btrim("title")) > 0);
-- Only experiment records carry an experiments row.
ALTER TABLE "program_records" ADD CONSTRAINT "program_records_experiment_check" CHECK ("experiment_id" IS NULL OR "record_type" = 'plans.experiments');
-- A citation points at exactly the object its kind names, and agent-origin text (artifacts, record versions) has no kind.
ALTER TABLE "record_citations" ADD CONSTRAINT "record_citations_target_check" CHECK (
  ("cited_kind" IN ('eln_entry', 'sop_version') AND "source_id" IS NOT NULL AND "document_id" IS NULL AND "cluster_key" IS NULL)
  OR ("cited_kind" = 'document_passage' AND "document_id" IS NOT NULL AND "source_id" IS NULL AND "cluster_key" IS NULL)
  OR ("cited_kind" = 'literature_cluster' AND "cluster_key" IS NOT NULL AND "source_id" IS NULL AND "document_id" IS NULL));
ALTER TABLE "program_record_versions" ADD CONSTRAINT "program_record_versions_change_check" CHECK ("change" IN ('create', 'update', 'decide'));
-- Each record type's statuses, as its machine in core/states/records.ts declares them.
ALTER TABLE "program_records" ADD CONSTRAINT "program_records_status_check" CHECK (
  ("record_type" = 'evidence.hypotheses' AND "status" IN ('proposed', 'supported', 'refuted', 'withdrawn'))
  OR ("record_type" = 'evidence.findings' AND "status" IN ('draft', 'confirmed', 'retracted'))
  OR ("record_type" = 'evidence.questions' AND "status" IN ('open', 'answered', 'closed'))
  OR ("record_type" = 'evidence.gaps' AND "status" IN ('open', 'closed', 'accepted'))
  OR ("record_type" = 'evidence.sources' AND "status" IN ('active', 'retired'))
  OR ("record_type" = 'plans.experiments' AND "status" IN ('planned', 'running', 'completed', 'cancelled'))
  OR ("record_type" = 'plans.protocols' AND "status" IN ('draft', 'final', 'superseded', 'withdrawn'))
  OR ("record_type" = 'plans.plans' AND "status" IN ('draft', 'approved', 'superseded', 'withdrawn'))
  OR ("record_type" = 'plans.reports' AND "status" IN ('draft', 'final', 'superseded', 'withdrawn'))
  OR ("record_type" = 'progress.milestones' AND "status" IN ('planned', 'at_risk', 'done', 'missed', 'cancelled'))
  OR ("record_type" = 'progress.dependencies' AND "status" IN ('open', 'met', 'broken'))
  OR ("record_type" = 'progress.open_items' AND "status" IN ('open', 'closed'))
  OR ("record_type" = 'progress.approvals' AND "status" IN ('requested', 'granted', 'declined', 'withdrawn'))
  OR ("record_type" = 'review.findings' AND "status" IN ('open', 'resolved', 'dismissed'))
  OR ("record_type" = 'review.deviations' AND "status" IN ('reported', 'investigating', 'closed')));
