-- Agent limits admitted atomically (issue 26, item 6): one counter row per limit and window, taken by the statement that
-- admits a call (INSERT ... ON CONFLICT DO UPDATE SET used = used + 1 WHERE used < limit), so calls sent at once cannot
-- all pass a count taken before any of them wrote (subgraphs/twins/tools/admission.ts).
-- CreateTable
CREATE TABLE "agent_limit_counters" (
    "organization_id" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "period" TEXT NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_limit_counters_pkey" PRIMARY KEY ("scope","subject_id","period")
);

-- CreateIndex
CREATE INDEX "agent_limit_counters_updated_at_idx" ON "agent_limit_counters"("updated_at");

-- The month in progress starts where the old rule left it: every tool_calls row of a twin this UTC month counted.
INSERT INTO "agent_limit_counters" ("organization_id", "scope", "subject_id", "period", "used")
SELECT organization_id, 'twin_month', twin_id, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), count(*)::int
FROM tool_calls
WHERE twin_id IS NOT NULL AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
GROUP BY organization_id, twin_id
ON CONFLICT DO NOTHING;
