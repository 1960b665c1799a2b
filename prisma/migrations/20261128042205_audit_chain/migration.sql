-- AlterTable
ALTER TABLE "audit_events" ADD COLUMN     "chain_seq" BIGINT,
ADD COLUMN     "entry_hash" TEXT,
ADD COLUMN     "prev_hash" TEXT,
ADD COLUMN     "subjects" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "audit_chain_heads" (
    "organization_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL DEFAULT 0,
    "head_hash" TEXT NOT NULL DEFAULT '',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "verified_at" TIMESTAMPTZ(3),
    "verified_seq" BIGINT,
    "broken_seq" BIGINT,
    "broken_entry_id" TEXT,
    "broken_reason" TEXT,

    CONSTRAINT "audit_chain_heads_pkey" PRIMARY KEY ("organization_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_events_organization_id_chain_seq_key" ON "audit_events"("organization_id", "chain_seq");

-- Audit rows written before this migration are not in any chain (their content was never hashed); the verifier counts
-- them as before the chain. Any other row without a chain position is a break (core/audit-chain.ts).
DO $$ BEGIN
  EXECUTE format('CREATE FUNCTION audit_chain_legacy_last_entry_seq() RETURNS bigint LANGUAGE sql IMMUTABLE AS %L',
    'SELECT ' || COALESCE((SELECT max(entry_seq) FROM audit_events), 0)::text);
END $$;

-- One row as the chain hashes it: to_jsonb of the whole row, timestamps rendered in UTC whatever the session's time
-- zone, so the append, the verifier and the export read the same text (docs/integrators.md, "The audit chain").
CREATE FUNCTION audit_chain_row(tbl text, row_id uuid) RETURNS jsonb LANGUAGE plpgsql STABLE SET timezone = 'UTC' AS $$
DECLARE r jsonb;
BEGIN
  IF tbl NOT IN ('audit_events', 'signatures', 'approvals', 'program_record_versions') THEN
    RAISE EXCEPTION 'audit_chain_row: % is not a chained table', tbl;
  END IF;
  EXECUTE format('SELECT to_jsonb(t) FROM %I t WHERE id = $1', tbl) INTO r USING row_id;
  RETURN r;
END $$;

-- Append-only (issue 35): audit events, decisions (approvals), signatures and record versions are never updated or
-- deleted, whatever code runs. The one update allowed is the chaining write of an audit row in its own transaction:
-- the chain columns set once, from null, every other column unchanged.
CREATE FUNCTION refuse_append_only_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Nested, not ANDed: PL/pgSQL does not promise to stop at the first false condition, and only audit_events has these columns.
  IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'audit_events' THEN
    IF OLD.entry_hash IS NULL AND OLD.chain_seq IS NULL AND NEW.entry_hash IS NOT NULL AND NEW.chain_seq IS NOT NULL
       AND (to_jsonb(NEW) - ARRAY['chain_seq', 'prev_hash', 'entry_hash']) = (to_jsonb(OLD) - ARRAY['chain_seq', 'prev_hash', 'entry_hash']) THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION 'append_only: % rows are never %d (issue 35); the audit trail keeps what was recorded', TG_TABLE_NAME, lower(TG_OP)
    USING ERRCODE = 'P0001', HINT = 'append_only';
END $$;

CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER approvals_append_only BEFORE UPDATE OR DELETE ON approvals
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER signatures_append_only BEFORE UPDATE OR DELETE ON signatures
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER program_record_versions_append_only BEFORE UPDATE OR DELETE ON program_record_versions
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();

CREATE FUNCTION refuse_append_only_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'append_only: % is never truncated (issue 35)', TG_TABLE_NAME USING ERRCODE = 'P0001', HINT = 'append_only';
END $$;
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_truncate();
CREATE TRIGGER approvals_no_truncate BEFORE TRUNCATE ON approvals FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_truncate();
CREATE TRIGGER signatures_no_truncate BEFORE TRUNCATE ON signatures FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_truncate();
CREATE TRIGGER program_record_versions_no_truncate BEFORE TRUNCATE ON program_record_versions FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_truncate();
