-- Health of sources reached on platform keys (literature_search has no connection in any program): the role home reads
-- its status from here; the literature_health job writes one row per provider every 15 minutes.
-- CreateTable
CREATE TABLE "platform_source_health" (
    "provider_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "checks" JSONB NOT NULL DEFAULT '[]',
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "last_ok_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_source_health_pkey" PRIMARY KEY ("provider_id")
);
