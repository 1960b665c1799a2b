-- CreateTable
CREATE TABLE "twin_model_settings" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "default_harness" TEXT NOT NULL DEFAULT 'deterministic',
    "provider" TEXT NOT NULL,
    "base_url" TEXT,
    "model" TEXT NOT NULL,
    "api_key_ciphertext" TEXT,
    "api_key_id" TEXT,
    "input_usd_per_mtok" DECIMAL(12,6) NOT NULL DEFAULT 0,
    "output_usd_per_mtok" DECIMAL(12,6) NOT NULL DEFAULT 0,
    "max_turns" INTEGER NOT NULL DEFAULT 8,
    "max_tool_calls" INTEGER NOT NULL DEFAULT 24,
    "max_tokens" INTEGER NOT NULL DEFAULT 200000,
    "max_seconds" INTEGER NOT NULL DEFAULT 300,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "twin_model_settings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "twin_model_settings_organization_id_scope_key" ON "twin_model_settings"("organization_id", "scope");
