-- Session changes announced (issue 20): the trigger that bumps a person's session version also sends
-- NOTIFY session_changed with the person's id and new version, in the same transaction (PostgreSQL delivers it at
-- commit, never for a rollback). Gateways keep session stamps in a per-process cache and drop a person's stamp when
-- this arrives (gateway/session-stamps.ts). The payload is only ids and a number (about 70 bytes, far below the
-- 8000-byte limit): nothing about the change travels, the gateway re-reads the stamp.
CREATE OR REPLACE FUNCTION bump_session_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_user uuid;
  new_user uuid;
  bumped record;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_user := (to_jsonb(OLD) ->> TG_ARGV[0])::uuid; END IF;
  IF TG_OP <> 'DELETE' THEN new_user := (to_jsonb(NEW) ->> TG_ARGV[0])::uuid; END IF;
  FOR bumped IN
    INSERT INTO session_versions (user_id, version)
      SELECT u, 1 FROM (SELECT DISTINCT u FROM unnest(ARRAY[old_user, new_user]) AS u WHERE u IS NOT NULL ORDER BY u) AS people
      ON CONFLICT (user_id) DO UPDATE SET version = session_versions.version + 1
      RETURNING user_id, version
  LOOP
    PERFORM pg_notify('session_changed', json_build_object('userId', bumped.user_id, 'version', bumped.version)::text);
  END LOOP;
  RETURN NULL;
END $$;
