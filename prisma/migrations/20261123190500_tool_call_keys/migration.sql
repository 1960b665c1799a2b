-- AlterTable
ALTER TABLE "tool_calls" ADD COLUMN     "idempotency_key" TEXT,
ADD COLUMN     "turn" INTEGER,
ADD COLUMN     "twin_id" UUID;

-- CreateIndex
CREATE INDEX "tool_calls_twin_id_created_at_idx" ON "tool_calls"("twin_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "tool_calls_run_id_idempotency_key_key" ON "tool_calls"("run_id", "idempotency_key");
