-- CreateEnum
CREATE TYPE "inbox_item_kind" AS ENUM ('decision', 'signature', 'question', 'handoff', 'mention', 'information', 'stage');

-- CreateEnum
CREATE TYPE "inbox_item_status" AS ENUM ('open', 'snoozed', 'done', 'dismissed', 'expired');

-- CreateEnum
CREATE TYPE "inbox_feedback" AS ENUM ('none', 'helpful', 'not_useful');

-- CreateTable
CREATE TABLE "inbox_items" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "program_id" UUID,
    "kind" "inbox_item_kind" NOT NULL,
    "source_type" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "interrupt_id" UUID,
    "twin_id" UUID,
    "trigger_id" UUID,
    "priority" TEXT NOT NULL DEFAULT 'digest',
    "batch_key" TEXT,
    "due_at" TIMESTAMPTZ(3),
    "reminded_at" TIMESTAMPTZ(3),
    "status" "inbox_item_status" NOT NULL DEFAULT 'open',
    "snoozed_until" TIMESTAMPTZ(3),
    "delegated_from_user_id" UUID,
    "feedback" "inbox_feedback" NOT NULL DEFAULT 'none',
    "done_by" UUID,
    "done_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbox_items_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "inbox_items_user_id_status_created_at_idx" ON "inbox_items"("user_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "inbox_items_status_due_at_idx" ON "inbox_items"("status", "due_at");
