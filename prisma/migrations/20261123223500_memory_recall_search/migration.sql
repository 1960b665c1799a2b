-- Recall over a large organisation (issue 13, budget p50 under 20 ms over 100,000 records). The expression index on
-- to_tsvector(summary) was searched organisation-wide: every word common to many people's notes matched thousands of
-- rows, each fetched and filtered by owner, and ts_rank recomputed to_tsvector per row. Now recall reads one person's
-- posting list intersected with the words' lists in one GIN index, and ranks a stored vector.

-- btree_gin lets one GIN index hold the owner (a uuid) beside the text vector (a trusted extension).
CREATE EXTENSION IF NOT EXISTS "btree_gin";

-- The summary's text vector, generated and stored by PostgreSQL: it can never disagree with the summary.
ALTER TABLE "memory_records" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "summary")) STORED;

DROP INDEX "memory_records_summary_search";
DROP INDEX "memory_records_recall_recent";

-- Recall's text pass: the owner's posting list intersected with each query word's, live records only.
CREATE INDEX "memory_records_recall_text" ON "memory_records" USING gin ("user_id", "search")
  WHERE "status" IN ('kept', 'promoted');

-- Recall's recency pass: organisation, owner, tier and program all in the index condition, newest first, so LIMIT
-- reads only the rows it returns.
CREATE INDEX "memory_records_recall_recent" ON "memory_records" ("organization_id", "user_id", "tier", "program_id", "created_at" DESC, "id" DESC)
  WHERE "status" IN ('kept', 'promoted');
