-- CreateTable
CREATE TABLE "literature_clusters" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "cluster_key" TEXT NOT NULL,
    "aliases" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "title" TEXT NOT NULL,
    "licence" TEXT NOT NULL,
    "provenance" JSONB NOT NULL DEFAULT '[]',
    "successor_key" TEXT,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "literature_clusters_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "literature_clusters_aliases_idx" ON "literature_clusters" USING GIN ("aliases");

-- CreateIndex
CREATE UNIQUE INDEX "literature_clusters_organization_id_cluster_key_key" ON "literature_clusters"("organization_id", "cluster_key");
