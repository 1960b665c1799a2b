-- Hand-offs, delegations, threads and messages with mentions (twins document, R3; issue 17).

-- CreateEnum
CREATE TYPE "handoff_kind" AS ENUM ('review', 'data', 'decision', 'information');

-- CreateEnum
CREATE TYPE "handoff_status" AS ENUM ('sent', 'accepted', 'declined', 'done', 'withdrawn');

-- CreateEnum
CREATE TYPE "delegation_status" AS ENUM ('active', 'expired', 'revoked');

-- CreateTable
CREATE TABLE "handoff_requests" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "from_user_id" UUID NOT NULL,
    "from_twin_id" UUID,
    "to_persona_key" TEXT NOT NULL,
    "to_user_id" UUID,
    "kind" "handoff_kind" NOT NULL,
    "linked_type" TEXT NOT NULL,
    "linked_id" TEXT NOT NULL,
    "message_md" TEXT NOT NULL DEFAULT '',
    "redactions" JSONB NOT NULL DEFAULT '[]',
    "status" "handoff_status" NOT NULL DEFAULT 'sent',
    "thread_id" UUID,
    "proposal_id" UUID,
    "decided_by" UUID,
    "decided_at" TIMESTAMPTZ(3),
    "reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "handoff_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delegations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "delegate_user_id" UUID NOT NULL,
    "program_id" UUID,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "renewal_count" INTEGER NOT NULL DEFAULT 0,
    "revoked_at" TIMESTAMPTZ(3),
    "status" "delegation_status" NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "delegations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "threads" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "created_by_user_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "private" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "threads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "author_user_id" UUID NOT NULL,
    "body_md" TEXT NOT NULL,
    "mentions" UUID[] DEFAULT ARRAY[]::UUID[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "handoff_requests_organization_id_program_id_created_at_id_idx" ON "handoff_requests"("organization_id", "program_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "handoff_requests_program_id_status_idx" ON "handoff_requests"("program_id", "status");

-- CreateIndex
CREATE INDEX "delegations_organization_id_user_id_status_idx" ON "delegations"("organization_id", "user_id", "status");

-- CreateIndex
CREATE INDEX "delegations_organization_id_delegate_user_id_status_idx" ON "delegations"("organization_id", "delegate_user_id", "status");

-- CreateIndex
CREATE INDEX "delegations_status_ends_at_idx" ON "delegations"("status", "ends_at");

-- CreateIndex
CREATE INDEX "threads_organization_id_program_id_created_at_id_idx" ON "threads"("organization_id", "program_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "messages_thread_id_created_at_idx" ON "messages"("thread_id", "created_at");

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A sent or accepted hand-off with the same linked record, persona and kind cannot be duplicated (handoff_exists).
CREATE UNIQUE INDEX "handoff_requests_open_unique" ON "handoff_requests"("linked_type", "linked_id", "to_persona_key", "kind") WHERE "status" IN ('sent', 'accepted');

-- Never addressed to its sender (self_handoff is refused before this, with nothing written).
ALTER TABLE "handoff_requests" ADD CONSTRAINT "handoff_requests_not_self" CHECK ("to_user_id" IS NULL OR "to_user_id" <> "from_user_id");

-- The delegate differs from the delegator, and a period ends after it starts and at most 30 days later.
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_not_self" CHECK ("delegate_user_id" <> "user_id");
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_at_most_30_days" CHECK ("ends_at" > "starts_at" AND "ends_at" <= "starts_at" + interval '30 days');

-- One active delegation per person and program (a null program is every program: its own slot).
CREATE UNIQUE INDEX "delegations_one_active" ON "delegations"("user_id", COALESCE("program_id", '00000000-0000-0000-0000-000000000000'::uuid)) WHERE "status" = 'active';

-- Decision metrics read proposals (detached write_approval interrupts) by the program their question names.
CREATE INDEX "run_interrupts_proposal_program" ON "run_interrupts"("organization_id", ("question"->>'programId'), "created_at") WHERE "kind" = 'write_approval';
-- The board reads a program's open decision items.
CREATE INDEX "inbox_items_program_open_decisions" ON "inbox_items"("program_id", "created_at") WHERE "kind" = 'decision' AND "status" IN ('open', 'snoozed');
