-- CreateEnum
CREATE TYPE "webhook_outcome" AS ENUM ('enqueued', 'ignored', 'rejected');

-- CreateEnum
CREATE TYPE "rate_budget_scope" AS ENUM ('platform', 'organization', 'connection');

-- CreateTable
CREATE TABLE "connections" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "provider_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "scope_rules" JSONB NOT NULL DEFAULT '{}',
    "poll_interval_seconds" INTEGER,
    "credential_class" TEXT NOT NULL,
    "write_policy" TEXT NOT NULL DEFAULT 'read_only',
    "api_version" TEXT NOT NULL,
    "base_url" TEXT,
    "app_definition_id" TEXT,
    "secrets_ciphertext" TEXT,
    "secrets_key_id" TEXT,
    "secrets_updated_at" TIMESTAMPTZ(3),
    "consented_by" UUID NOT NULL,
    "consented_at" TIMESTAMPTZ(3) NOT NULL,
    "health" JSONB NOT NULL DEFAULT '{}',
    "health_checked_at" TIMESTAMPTZ(3),
    "sync_cursor" TEXT,
    "last_synced_at" TIMESTAMPTZ(3),
    "created_by_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disconnected_at" TIMESTAMPTZ(3),

    CONSTRAINT "connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connector_objects" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "connection_id" UUID NOT NULL,
    "external_type" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "external_version" TEXT,
    "payload_hash" TEXT,
    "external_modified_at" TIMESTAMPTZ(3),
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    "mapped_type" TEXT,
    "mapped_id" UUID,
    "state" TEXT,
    "scope_key" TEXT,
    "last_fetched_at" TIMESTAMPTZ(3),

    CONSTRAINT "connector_objects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID,
    "program_id" UUID,
    "connection_id" UUID,
    "provider_id" TEXT NOT NULL,
    "requested_connection_id" TEXT,
    "delivery_id" TEXT,
    "event_type" TEXT,
    "signature_ok" BOOLEAN NOT NULL,
    "replay" BOOLEAN NOT NULL DEFAULT false,
    "outcome" "webhook_outcome" NOT NULL,
    "reason" TEXT,
    "status_code" INTEGER NOT NULL,
    "source_address" TEXT NOT NULL,
    "body_bytes" INTEGER NOT NULL,
    "webhook_timestamp" TIMESTAMPTZ(3),
    "payload" JSONB,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),
    "processing_result" TEXT,
    "processing_attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_delivery_ids" (
    "connection_id" UUID NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "organization_id" UUID NOT NULL,
    "first_received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_delivery_ids_pkey" PRIMARY KEY ("connection_id","delivery_id")
);

-- CreateTable
CREATE TABLE "launch_ids" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "connection_id" UUID NOT NULL,
    "entry_external_id" TEXT NOT NULL,
    "source_id" UUID,
    "canvas_id" TEXT,
    "notebook_user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "used_by_user_id" UUID,

    CONSTRAINT "launch_ids_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rate_budgets" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID,
    "provider_id" TEXT NOT NULL,
    "scope" "rate_budget_scope" NOT NULL,
    "scope_key" TEXT NOT NULL,
    "limit_per_window" INTEGER NOT NULL,
    "window_seconds" INTEGER NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    "window_started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "remote_limit" INTEGER,
    "remote_remaining" INTEGER,
    "remote_reset_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rate_budgets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sources" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "connection_id" UUID,
    "connector_object_id" UUID,
    "source_type" TEXT NOT NULL,
    "source_system" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "url" TEXT,
    "target_ref" TEXT,
    "external_version" TEXT,
    "linked_entities" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "documents" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "source_system" TEXT NOT NULL,
    "classification" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "content_json" JSONB NOT NULL,
    "content_hash" TEXT NOT NULL,
    "target_ref" TEXT,
    "external_version" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "eln_source_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attachments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "connection_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "external_id" TEXT NOT NULL,
    "entry_external_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "mime_type" TEXT,
    "size_bytes" BIGINT NOT NULL,
    "sha256" TEXT,
    "fetchable" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "attachments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_leases" (
    "pool_id" TEXT NOT NULL,
    "lease_key" INTEGER NOT NULL,
    "hostname" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "worker_leases_pkey" PRIMARY KEY ("pool_id")
);

-- CreateIndex
CREATE INDEX "connections_organization_id_program_id_provider_id_idx" ON "connections"("organization_id", "program_id", "provider_id");

-- CreateIndex
CREATE INDEX "connector_objects_organization_id_program_id_idx" ON "connector_objects"("organization_id", "program_id");

-- CreateIndex
CREATE UNIQUE INDEX "connector_objects_connection_id_external_type_external_id_key" ON "connector_objects"("connection_id", "external_type", "external_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_connection_id_delivery_id_received_at_idx" ON "webhook_deliveries"("connection_id", "delivery_id", "received_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_connection_id_processed_at_received_at_idx" ON "webhook_deliveries"("connection_id", "processed_at", "received_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_source_address_received_at_idx" ON "webhook_deliveries"("source_address", "received_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_received_at_idx" ON "webhook_deliveries"("received_at");

-- CreateIndex
CREATE INDEX "webhook_delivery_ids_first_received_at_idx" ON "webhook_delivery_ids"("first_received_at");

-- CreateIndex
CREATE INDEX "launch_ids_expires_at_idx" ON "launch_ids"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "rate_budgets_provider_id_scope_scope_key_key" ON "rate_budgets"("provider_id", "scope", "scope_key");

-- CreateIndex
CREATE UNIQUE INDEX "sources_connector_object_id_key" ON "sources"("connector_object_id");

-- CreateIndex
CREATE INDEX "sources_organization_id_program_id_source_type_idx" ON "sources"("organization_id", "program_id", "source_type");

-- CreateIndex
CREATE UNIQUE INDEX "documents_source_id_key" ON "documents"("source_id");

-- CreateIndex
CREATE INDEX "documents_organization_id_program_id_idx" ON "documents"("organization_id", "program_id");

-- CreateIndex
CREATE UNIQUE INDEX "experiments_eln_source_id_key" ON "experiments"("eln_source_id");

-- CreateIndex
CREATE INDEX "experiments_organization_id_program_id_idx" ON "experiments"("organization_id", "program_id");

-- CreateIndex
CREATE UNIQUE INDEX "attachments_connection_id_external_id_key" ON "attachments"("connection_id", "external_id");

-- CreateIndex
CREATE INDEX "worker_leases_lease_key_idx" ON "worker_leases"("lease_key");

-- AddForeignKey
ALTER TABLE "connector_objects" ADD CONSTRAINT "connector_objects_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "connections"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_eln_source_id_fkey" FOREIGN KEY ("eln_source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Connector layer invariants (Prisma does not model CHECK constraints).
-- Every connector is read-only.
ALTER TABLE "connections" ADD CONSTRAINT "connections_write_policy_read_only" CHECK ("write_policy" = 'read_only');
ALTER TABLE "connections" ADD CONSTRAINT "connections_status_known" CHECK ("status" IN ('active', 'disconnected'));
-- Rejected deliveries are stored without payload.
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_rejected_without_payload" CHECK ("outcome" <> 'rejected' OR "payload" IS NULL);
-- A launch id expires after it was created (10 minutes later).
ALTER TABLE "launch_ids" ADD CONSTRAINT "launch_ids_expiry_after_creation" CHECK ("expires_at" > "created_at");
