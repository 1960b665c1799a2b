-- CreateEnum
CREATE TYPE "sop_lifecycle_state" AS ENUM ('draft', 'in_review', 'effective', 'superseded', 'obsolete', 'unmapped');

-- CreateEnum
CREATE TYPE "sop_origin" AS ENUM ('connector', 'local');

-- CreateEnum
CREATE TYPE "requirement_set_status" AS ENUM ('draft', 'accepted', 'superseded');

-- CreateEnum
CREATE TYPE "check_row_outcome" AS ENUM ('pending', 'met', 'not_met');

-- AlterTable
ALTER TABLE "connections" ADD COLUMN     "provider_settings" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "sops" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "origin" "sop_origin" NOT NULL,
    "connection_id" UUID,
    "external_document_id" TEXT,
    "document_number" TEXT NOT NULL,
    "document_type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "created_by_user_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "sops_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sop_versions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "sop_id" UUID NOT NULL,
    "connection_id" UUID,
    "document_id" TEXT,
    "external_version_id" TEXT,
    "major" INTEGER NOT NULL,
    "minor" INTEGER NOT NULL,
    "external_version_label" TEXT,
    "vendor_label" TEXT,
    "lifecycle_state" "sop_lifecycle_state" NOT NULL,
    "effective_at" TIMESTAMPTZ(3),
    "effective_on_observed" BOOLEAN NOT NULL DEFAULT false,
    "superseded_at" TIMESTAMPTZ(3),
    "rendition_hash" TEXT,
    "rendition_type" TEXT,
    "rendition_sha256" TEXT,
    "rendition_bytes" INTEGER,
    "rendition_fetched_at" TIMESTAMPTZ(3),
    "text" TEXT NOT NULL DEFAULT '',
    "text_hash" TEXT,
    "text_source" TEXT,
    "sanitiser_findings" JSONB NOT NULL DEFAULT '[]',
    "external_modified_at" TIMESTAMPTZ(3),
    "first_observed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    "approved_by_user_id" UUID,
    "approval_signature_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sop_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "requirement_sets" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "sop_version_id" UUID NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "status" "requirement_set_status" NOT NULL DEFAULT 'draft',
    "title" TEXT NOT NULL,
    "text_hash" TEXT NOT NULL,
    "extracted_from" TEXT NOT NULL,
    "created_by_user_id" UUID NOT NULL,
    "accepted_by_user_id" UUID,
    "accepted_at" TIMESTAMPTZ(3),
    "signature_id" UUID,
    "signature_meaning" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "requirement_sets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "requirements" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "requirement_set_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "ref" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "section" TEXT NOT NULL,
    "anchor_start" INTEGER NOT NULL,
    "anchor_end" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "requirements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sop_checks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "source_type" TEXT NOT NULL,
    "document_type" TEXT NOT NULL,
    "sop_version_id" UUID NOT NULL,
    "requirement_set_id" UUID,
    "launch_id" UUID,
    "created_by_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sop_checks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sop_check_rows" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "check_id" UUID NOT NULL,
    "requirement_id" UUID NOT NULL,
    "outcome" "check_row_outcome" NOT NULL DEFAULT 'pending',
    "note" TEXT,
    "evidence" JSONB NOT NULL DEFAULT '[]',
    "decided_by_user_id" UUID,
    "decided_at" TIMESTAMPTZ(3),

    CONSTRAINT "sop_check_rows_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sops_organization_id_program_id_document_type_idx" ON "sops"("organization_id", "program_id", "document_type");

-- CreateIndex
CREATE INDEX "sops_program_id_created_at_id_idx" ON "sops"("program_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "sops_connection_id_external_document_id_key" ON "sops"("connection_id", "external_document_id");

-- CreateIndex
CREATE INDEX "sop_versions_organization_id_program_id_lifecycle_state_idx" ON "sop_versions"("organization_id", "program_id", "lifecycle_state");

-- CreateIndex
CREATE INDEX "sop_versions_connection_id_external_modified_at_idx" ON "sop_versions"("connection_id", "external_modified_at");

-- CreateIndex
CREATE UNIQUE INDEX "sop_versions_sop_id_major_minor_key" ON "sop_versions"("sop_id", "major", "minor");

-- CreateIndex
CREATE INDEX "requirement_sets_organization_id_program_id_status_idx" ON "requirement_sets"("organization_id", "program_id", "status");

-- CreateIndex
CREATE INDEX "requirement_sets_program_id_created_at_id_idx" ON "requirement_sets"("program_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "requirement_sets_sop_version_id_version_key" ON "requirement_sets"("sop_version_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "requirements_requirement_set_id_number_key" ON "requirements"("requirement_set_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "sop_checks_launch_id_key" ON "sop_checks"("launch_id");

-- CreateIndex
CREATE INDEX "sop_checks_organization_id_program_id_created_at_id_idx" ON "sop_checks"("organization_id", "program_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "sop_checks_source_id_idx" ON "sop_checks"("source_id");

-- CreateIndex
CREATE UNIQUE INDEX "sop_check_rows_check_id_requirement_id_key" ON "sop_check_rows"("check_id", "requirement_id");

-- AddForeignKey
ALTER TABLE "sop_versions" ADD CONSTRAINT "sop_versions_sop_id_fkey" FOREIGN KEY ("sop_id") REFERENCES "sops"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "requirement_sets" ADD CONSTRAINT "requirement_sets_sop_version_id_fkey" FOREIGN KEY ("sop_version_id") REFERENCES "sop_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "requirements" ADD CONSTRAINT "requirements_requirement_set_id_fkey" FOREIGN KEY ("requirement_set_id") REFERENCES "requirement_sets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sop_checks" ADD CONSTRAINT "sop_checks_sop_version_id_fkey" FOREIGN KEY ("sop_version_id") REFERENCES "sop_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sop_checks" ADD CONSTRAINT "sop_checks_requirement_set_id_fkey" FOREIGN KEY ("requirement_set_id") REFERENCES "requirement_sets"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sop_check_rows" ADD CONSTRAINT "sop_check_rows_check_id_fkey" FOREIGN KEY ("check_id") REFERENCES "sop_checks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sop_check_rows" ADD CONSTRAINT "sop_check_rows_requirement_id_fkey" FOREIGN KEY ("requirement_id") REFERENCES "requirements"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A connector SOP names its connection and QMS document id, a local SOP neither.
ALTER TABLE "sops" ADD CONSTRAINT "sops_origin_check"
  CHECK (("origin" = 'connector') = ("connection_id" IS NOT NULL AND "external_document_id" IS NOT NULL));

-- An accepted requirement set records who accepted it, when, and the signature (with its meaning).
ALTER TABLE "requirement_sets" ADD CONSTRAINT "requirement_sets_accepted_check"
  CHECK ("status" <> 'accepted' OR ("accepted_by_user_id" IS NOT NULL AND "accepted_at" IS NOT NULL AND "signature_id" IS NOT NULL AND "signature_meaning" IS NOT NULL));

-- At most one accepted requirement set per SOP version (a new acceptance supersedes the old one first).
CREATE UNIQUE INDEX "requirement_sets_one_accepted" ON "requirement_sets" ("sop_version_id") WHERE "status" = 'accepted';

-- A check binds a notebook entry (sources of type eln_entry).
ALTER TABLE "sop_checks" ADD CONSTRAINT "sop_checks_source_type_check" CHECK ("source_type" = 'eln_entry');
