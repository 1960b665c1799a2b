-- CreateTable
CREATE TABLE "webhook_source_counters" (
    "source_address" TEXT NOT NULL,
    "window_started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rejected" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "webhook_source_counters_pkey" PRIMARY KEY ("source_address")
);

-- CreateIndex
CREATE INDEX "webhook_source_counters_window_started_at_idx" ON "webhook_source_counters"("window_started_at");
