-- CreateEnum
CREATE TYPE "memory_tier" AS ENUM ('individual', 'person', 'role');

-- CreateEnum
CREATE TYPE "memory_kind" AS ENUM ('episodic', 'preference', 'vocabulary', 'rubric_adjustment', 'lesson', 'rubric_version');

-- CreateEnum
CREATE TYPE "memory_origin" AS ENUM ('human', 'agent');

-- CreateEnum
CREATE TYPE "memory_status" AS ENUM ('proposed', 'kept', 'promotion_requested', 'promoted', 'forgotten');

-- CreateTable
CREATE TABLE "memory_records" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "program_id" UUID,
    "workbench_role_key" TEXT,
    "tier" "memory_tier" NOT NULL,
    "kind" "memory_kind" NOT NULL,
    "summary" TEXT NOT NULL,
    "body" TEXT,
    "origin" "memory_origin" NOT NULL,
    "status" "memory_status" NOT NULL,
    "source_ref" TEXT,
    "passage_refs" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "content_hash" TEXT NOT NULL,
    "promoted_from_id" UUID,
    "on_behalf_of" UUID,
    "curated_by" UUID,
    "version" INTEGER NOT NULL DEFAULT 1,
    "expires_at" TIMESTAMPTZ(3),
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "namespace" TEXT NOT NULL,
    "forgotten_at" TIMESTAMPTZ(3),
    "removed_by_user_id" UUID,
    "removal_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memory_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memory_views" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "record_id" UUID NOT NULL,
    "viewer_user_id" UUID NOT NULL,
    "viewed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memory_views_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "memory_records_organization_id_user_id_program_id_status_cr_idx" ON "memory_records"("organization_id", "user_id", "program_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "memory_records_status_expires_at_idx" ON "memory_records"("status", "expires_at");

-- CreateIndex
CREATE INDEX "memory_records_organization_id_user_id_content_hash_idx" ON "memory_records"("organization_id", "user_id", "content_hash");

-- CreateIndex
CREATE INDEX "memory_views_record_id_viewed_at_idx" ON "memory_views"("record_id", "viewed_at");

-- AddForeignKey
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_program_id_fkey" FOREIGN KEY ("program_id") REFERENCES "programs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_views" ADD CONSTRAINT "memory_views_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "memory_records"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Memory invariants (memory document, Memory tiers and Memory record). Prisma does not model CHECK constraints.
-- The namespace begins with the row's own organisation: the organisation column plus namespace check.
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_namespace_of_organization"
  CHECK (starts_with("namespace", 'org/' || "organization_id"::text || '/'));
-- Kinds each tier admits.
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_kind_admitted_by_tier" CHECK (
  ("tier" = 'individual' AND "kind" IN ('episodic', 'preference', 'vocabulary', 'rubric_adjustment', 'lesson'))
  OR ("tier" = 'person' AND "kind" IN ('preference', 'vocabulary', 'rubric_adjustment'))
  OR ("tier" = 'role' AND "kind" IN ('rubric_version', 'vocabulary', 'lesson')));
-- Tier 1 is one person in one program: tier 2 spans programs, so it names none and carries no record or passage reference.
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_individual_in_a_program"
  CHECK ("tier" <> 'individual' OR "program_id" IS NOT NULL);
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_person_without_program_or_reference"
  CHECK ("tier" <> 'person' OR ("program_id" IS NULL AND "source_ref" IS NULL AND cardinality(coalesce("passage_refs", ARRAY[]::TEXT[])) = 0));
-- Tier 3 is reserved for R5: no row may exist in R4 (the R5 migration drops this constraint).
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_role_tier_reserved" CHECK ("tier" <> 'role');
-- A proposed note lives in its write_approval interrupt until Keep: the table holds nothing the person did not keep.
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_nothing_unkept" CHECK ("status" <> 'proposed');
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_summary_length" CHECK (char_length("summary") <= 600);
-- A forgotten row keeps nothing of its content (a tombstone: source_ref and content_hash only).
ALTER TABLE "memory_records" ADD CONSTRAINT "memory_records_forgotten_erased"
  CHECK ("status" <> 'forgotten' OR ("summary" = '' AND "body" IS NULL AND "forgotten_at" IS NOT NULL));

-- Text match for recall (no vector search in R4): an expression index on the summary.
CREATE INDEX "memory_records_summary_search" ON "memory_records" USING gin (to_tsvector('english', "summary"))
  WHERE "status" IN ('kept', 'promoted');

-- Recall's recency read (recall.ts): one person's live records of a tier (and program), newest first, read in index order.
CREATE INDEX "memory_records_recall_recent" ON "memory_records" ("user_id", "tier", "program_id", "created_at" DESC, "id" DESC)
  WHERE "status" IN ('kept', 'promoted');
