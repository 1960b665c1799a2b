-- Issue 29: twin_evaluate keeps each twin's report per period (twin_evaluations, read under program.twins.read per
-- twin; nothing aggregates per person), and inbox_expire escalates items open longer than the program's escalation_days
-- once (inbox_items.escalated_at).
-- AlterTable
ALTER TABLE "inbox_items" ADD COLUMN     "escalated_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "twin_evaluations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID,
    "twin_id" UUID NOT NULL,
    "evaluated_on" DATE NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "filed" INTEGER NOT NULL,
    "approved_unchanged" INTEGER NOT NULL,
    "edited" INTEGER NOT NULL,
    "declined" INTEGER NOT NULL,
    "declined_by_reason" JSONB NOT NULL DEFAULT '{}',
    "refused" INTEGER NOT NULL,
    "expired" INTEGER NOT NULL,
    "not_useful_by_trigger" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "twin_evaluations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "twin_evaluations_organization_id_twin_id_period_end_idx" ON "twin_evaluations"("organization_id", "twin_id", "period_end");

-- CreateIndex
CREATE UNIQUE INDEX "twin_evaluations_twin_id_evaluated_on_key" ON "twin_evaluations"("twin_id", "evaluated_on");
