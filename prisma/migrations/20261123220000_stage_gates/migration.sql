-- Stage gates (twins document, R4): stage_gates and review_audit_reviews, and the database's half of 'the gate is the
-- only writer of programs.current_stage_id' (the trigger at the end).

-- CreateEnum
CREATE TYPE "stage_gate_status" AS ENUM ('open', 'ready', 'reviewed', 'closed');

-- CreateTable
CREATE TABLE "stage_gates" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "stage_id" UUID NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "status" "stage_gate_status" NOT NULL DEFAULT 'open',
    "required_records" JSONB NOT NULL DEFAULT '{}',
    "brief_artifact_id" UUID,
    "brief_version" INTEGER,
    "opened_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "opened_by" UUID,
    "ready_by" UUID,
    "ready_at" TIMESTAMPTZ(3),
    "review_signature_id" UUID,
    "close_approval_id" UUID,
    "close_signature_id" UUID,
    "closed_at" TIMESTAMPTZ(3),
    "next_stage_id" UUID NOT NULL,
    "supersedes_id" UUID,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stage_gates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_audit_reviews" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "program_id" UUID NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "summary" JSONB NOT NULL,
    "artifact_id" UUID,
    "created_by_user_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "accepted_by" UUID,
    "accepted_at" TIMESTAMPTZ(3),

    CONSTRAINT "review_audit_reviews_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "stage_gates_organization_id_program_id_status_idx" ON "stage_gates"("organization_id", "program_id", "status");

-- CreateIndex
CREATE INDEX "stage_gates_status_idx" ON "stage_gates"("status");

-- CreateIndex
CREATE UNIQUE INDEX "stage_gates_program_id_stage_id_version_key" ON "stage_gates"("program_id", "stage_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "review_audit_reviews_program_id_period_start_period_end_key" ON "review_audit_reviews"("program_id", "period_start", "period_end");

-- AddForeignKey
ALTER TABLE "stage_gates" ADD CONSTRAINT "stage_gates_stage_id_fkey" FOREIGN KEY ("stage_id") REFERENCES "program_stages"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "stage_gates" ADD CONSTRAINT "stage_gates_next_stage_id_fkey" FOREIGN KEY ("next_stage_id") REFERENCES "program_stages"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- One gate that is not closed per program and stage: a second open is refused, a supersede closes the old version
-- in the same transaction that inserts the new one.
CREATE UNIQUE INDEX "stage_gates_one_live_per_stage" ON "stage_gates"("program_id", "stage_id") WHERE "status" <> 'closed';

ALTER TABLE "stage_gates" ADD CONSTRAINT "stage_gates_next_stage_differs" CHECK ("next_stage_id" <> "stage_id");
ALTER TABLE "stage_gates" ADD CONSTRAINT "stage_gates_version_positive" CHECK ("version" >= 1);
-- A close is signed after a signed review, and a closed gate has its closing time.
ALTER TABLE "stage_gates" ADD CONSTRAINT "stage_gates_close_after_review" CHECK ("close_signature_id" IS NULL OR "review_signature_id" IS NOT NULL);
ALTER TABLE "stage_gates" ADD CONSTRAINT "stage_gates_closed_at" CHECK (("status" = 'closed') = ("closed_at" IS NOT NULL));
ALTER TABLE "review_audit_reviews" ADD CONSTRAINT "review_audit_reviews_period" CHECK ("period_end" > "period_start");

-- The gate is the only writer of programs.current_stage_id. Any insert with a stage, or any update that changes it,
-- is refused unless the transaction-local setting app.stage_gate_close names a gate of that program that is closed,
-- signed, and whose next_stage_id is the new stage. Only the close operation (subgraphs/twins/domain/gates.ts) sets
-- it, with set_config(..., true) in its own transaction, right after closing the gate, and clears it after the update.
CREATE FUNCTION programs_stage_via_gate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gate text := current_setting('app.stage_gate_close', true);
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.current_stage_id IS NULL THEN RETURN NEW; END IF;
  ELSIF NEW.current_stage_id IS NOT DISTINCT FROM OLD.current_stage_id THEN
    RETURN NEW;
  END IF;
  IF gate ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AND EXISTS (
    SELECT 1 FROM stage_gates g
    WHERE g.id = gate::uuid AND g.program_id = NEW.id AND g.organization_id = NEW.organization_id
      AND g.status = 'closed' AND g.close_signature_id IS NOT NULL AND g.next_stage_id = NEW.current_stage_id
  ) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'stage_via_gate: programs.current_stage_id changes only when its stage gate closes'
    USING ERRCODE = 'P0001', HINT = 'stage_via_gate';
END $$;

CREATE TRIGGER programs_stage_via_gate BEFORE INSERT OR UPDATE OF current_stage_id ON programs
  FOR EACH ROW EXECUTE FUNCTION programs_stage_via_gate();
