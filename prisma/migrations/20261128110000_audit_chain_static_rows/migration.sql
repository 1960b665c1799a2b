-- The chain reads each row it hashes through audit_chain_row, on every append and for every entry the verifier walks.
-- It used EXECUTE format(...), which plans its query on every call; one static query per chained table is planned once
-- per session (PL/pgSQL caches it) and answers about three times faster. Same rows, same text: to_jsonb of the whole
-- row, timestamps in UTC (docs/integrators.md, "The audit chain").
CREATE OR REPLACE FUNCTION audit_chain_row(tbl text, row_id uuid) RETURNS jsonb LANGUAGE plpgsql STABLE SET timezone = 'UTC' AS $$
BEGIN
  CASE tbl
    WHEN 'audit_events' THEN RETURN (SELECT to_jsonb(t) FROM audit_events t WHERE id = row_id);
    WHEN 'signatures' THEN RETURN (SELECT to_jsonb(t) FROM signatures t WHERE id = row_id);
    WHEN 'approvals' THEN RETURN (SELECT to_jsonb(t) FROM approvals t WHERE id = row_id);
    WHEN 'program_record_versions' THEN RETURN (SELECT to_jsonb(t) FROM program_record_versions t WHERE id = row_id);
    ELSE RAISE EXCEPTION 'audit_chain_row: % is not a chained table', tbl;
  END CASE;
END $$;

-- The append's two statements, as functions: their plans are cached for the session instead of planned on every
-- write, and each write sends a short call instead of the whole text (core/sql/audit-chain.ts says what they do).
CREATE FUNCTION audit_chain_lock_and_read(org uuid, event_ids uuid[])
  RETURNS TABLE (seq bigint, head_hash text, id uuid, entry text, subjects text) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  -- An organisation's first append creates its head row; every append then locks it FOR UPDATE, which writes no new
  -- row version (the upsert this replaces wrote one on every append, to the one row all the organisation's writers share).
  INSERT INTO audit_chain_heads (organization_id) VALUES (org) ON CONFLICT (organization_id) DO NOTHING;
  RETURN QUERY
    WITH head AS (
      SELECT h.seq, h.head_hash FROM audit_chain_heads h WHERE h.organization_id = org FOR UPDATE)
    SELECT head.seq, head.head_hash, e.id,
      audit_chain_row('audit_events', e.id)::text,
      CASE WHEN e.subjects = '[]'::jsonb THEN '[]' ELSE
        (SELECT COALESCE(jsonb_agg(jsonb_build_object('table', s->>'table', 'id', s->>'id',
            'row', audit_chain_row(s->>'table', (s->>'id')::uuid)) ORDER BY ord), '[]'::jsonb)
          FROM jsonb_array_elements(e.subjects) WITH ORDINALITY AS x(s, ord))::text END
    FROM head, audit_events e
    WHERE e.id = ANY(event_ids) AND e.organization_id = org
    ORDER BY e.entry_seq;
END $$;

CREATE FUNCTION audit_chain_set_positions(org uuid, ids uuid[], seqs bigint[], prevs text[], hashes text[])
  RETURNS void LANGUAGE plpgsql AS $$
DECLARE moved bigint;
BEGIN
  UPDATE audit_events a SET chain_seq = v.seq, prev_hash = v.prev, entry_hash = v.hash
    FROM unnest(ids, seqs, prevs, hashes) AS v(id, seq, prev, hash)
    WHERE a.id = v.id AND a.organization_id = org;
  GET DIAGNOSTICS moved = ROW_COUNT;
  -- The head moves only when every entry took its position (as before: a count that differs leaves the head, and the
  -- verifier names the entry).
  UPDATE audit_chain_heads SET seq = seqs[array_length(seqs, 1)], head_hash = hashes[array_length(hashes, 1)], updated_at = now()
    WHERE organization_id = org AND moved = array_length(ids, 1);
END $$;
