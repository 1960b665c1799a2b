-- The chain moves beside the audit rows (issue 35). Chaining used to be an UPDATE of the audit row just inserted: not a
-- HOT update (chain_seq is in a unique index), so it wrote every index of audit_events again, ran the append-only
-- trigger's row comparison and left a dead row version per entry, about twice the cost of the insert itself. A chain
-- position is now a row of its own in audit_chain_entries, inserted in the same transaction; audit_events is strictly
-- insert-only, with no update allowed at all. The hashes are unchanged: they never covered the chain columns.

-- CreateTable
CREATE TABLE "audit_chain_entries" (
    "organization_id" UUID NOT NULL,
    "chain_seq" BIGINT NOT NULL,
    "event_id" UUID NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "entry_hash" TEXT NOT NULL,

    CONSTRAINT "audit_chain_entries_pkey" PRIMARY KEY ("organization_id","chain_seq")
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_chain_entries_event_id_key" ON "audit_chain_entries"("event_id");

-- Every position recorded so far, as it was.
INSERT INTO audit_chain_entries (organization_id, chain_seq, event_id, prev_hash, entry_hash)
  SELECT organization_id, chain_seq, id, prev_hash, entry_hash FROM audit_events WHERE chain_seq IS NOT NULL;

-- Append-only, now without exception: the chaining update this function allowed no longer exists.
CREATE OR REPLACE FUNCTION refuse_append_only_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'append_only: % rows are never %d (issue 35); the audit trail keeps what was recorded', TG_TABLE_NAME, lower(TG_OP)
    USING ERRCODE = 'P0001', HINT = 'append_only';
END $$;

-- DropIndex
DROP INDEX "audit_events_organization_id_chain_seq_key";

-- AlterTable (a schema change, not a row update: the append-only triggers do not fire)
ALTER TABLE "audit_events" DROP COLUMN "chain_seq",
DROP COLUMN "entry_hash",
DROP COLUMN "prev_hash";

CREATE TRIGGER audit_chain_entries_append_only BEFORE UPDATE OR DELETE ON audit_chain_entries
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER audit_chain_entries_no_truncate BEFORE TRUNCATE ON audit_chain_entries
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_truncate();

-- The lock: an existing head (every append but an organisation's first) is locked with one SELECT ... FOR UPDATE; the
-- first append creates it. Then each new audit row and its subjects as the chain hashes them, in insertion order.
CREATE OR REPLACE FUNCTION audit_chain_lock_and_read(org uuid, event_ids uuid[])
  RETURNS TABLE (seq bigint, head_hash text, id uuid, entry text, subjects text) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE head_seq bigint; head_h text;
BEGIN
  SELECT h.seq, h.head_hash INTO head_seq, head_h FROM audit_chain_heads h WHERE h.organization_id = org FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO audit_chain_heads (organization_id) VALUES (org) ON CONFLICT (organization_id) DO NOTHING;
    SELECT h.seq, h.head_hash INTO head_seq, head_h FROM audit_chain_heads h WHERE h.organization_id = org FOR UPDATE;
  END IF;
  RETURN QUERY
    SELECT head_seq, head_h, e.id,
      audit_chain_row('audit_events', e.id)::text,
      CASE WHEN e.subjects = '[]'::jsonb THEN '[]' ELSE
        (SELECT COALESCE(jsonb_agg(jsonb_build_object('table', s->>'table', 'id', s->>'id',
            'row', audit_chain_row(s->>'table', (s->>'id')::uuid)) ORDER BY ord), '[]'::jsonb)
          FROM jsonb_array_elements(e.subjects) WITH ORDINALITY AS x(s, ord))::text END
    FROM audit_events e
    WHERE e.id = ANY(event_ids) AND e.organization_id = org
    ORDER BY e.entry_seq;
END $$;

-- The positions: one insert, then the head moves to the last of them (a failed insert fails the writer's transaction,
-- so the change, its audit rows and their positions commit or roll back together).
CREATE OR REPLACE FUNCTION audit_chain_set_positions(org uuid, ids uuid[], seqs bigint[], prevs text[], hashes text[])
  RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit_chain_entries (organization_id, chain_seq, event_id, prev_hash, entry_hash)
    SELECT org, v.seq, v.id, v.prev, v.hash FROM unnest(ids, seqs, prevs, hashes) AS v(id, seq, prev, hash);
  UPDATE audit_chain_heads SET seq = seqs[array_length(seqs, 1)], head_hash = hashes[array_length(hashes, 1)], updated_at = now()
    WHERE organization_id = org;
END $$;
