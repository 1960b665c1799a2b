-- Signed single-purpose inbox links: a link is used once (its jti is the primary key, the token is never stored)
-- CreateTable
CREATE TABLE "inbox_link_uses" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbox_link_uses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "inbox_link_uses_organization_id_item_id_idx" ON "inbox_link_uses"("organization_id", "item_id");
