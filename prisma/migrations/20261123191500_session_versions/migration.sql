-- Session versions (issue 20): processes cache a person's session and reload it when this number moved. Triggers bump
-- it in the same transaction as every change to what a session holds, whoever writes (gateway, worker, psql), so the
-- first request after the change commits sees it: the gateway reads the version per request.

-- CreateTable
CREATE TABLE "session_versions" (
    "user_id" UUID NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "session_versions_pkey" PRIMARY KEY ("user_id")
);

-- TG_ARGV[0] names the column holding the person's id (user_id, or id on users).
CREATE FUNCTION bump_session_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_user uuid;
  new_user uuid;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_user := (to_jsonb(OLD) ->> TG_ARGV[0])::uuid; END IF;
  IF TG_OP <> 'DELETE' THEN new_user := (to_jsonb(NEW) ->> TG_ARGV[0])::uuid; END IF;
  INSERT INTO session_versions (user_id, version)
    SELECT u, 1 FROM (SELECT DISTINCT u FROM unnest(ARRAY[old_user, new_user]) AS u WHERE u IS NOT NULL ORDER BY u) AS people
    ON CONFLICT (user_id) DO UPDATE SET version = session_versions.version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER program_memberships_session_version AFTER INSERT OR UPDATE OR DELETE ON program_memberships
  FOR EACH ROW EXECUTE FUNCTION bump_session_version('user_id');
CREATE TRIGGER role_assignments_session_version AFTER INSERT OR UPDATE OR DELETE ON role_assignments
  FOR EACH ROW EXECUTE FUNCTION bump_session_version('user_id');
CREATE TRIGGER org_role_assignments_session_version AFTER INSERT OR UPDATE OR DELETE ON org_role_assignments
  FOR EACH ROW EXECUTE FUNCTION bump_session_version('user_id');
-- users: only the columns a session holds (settings and the like change without reloading anyone's permissions)
CREATE TRIGGER users_session_version AFTER UPDATE OF organization_id, email, name, deactivated_at OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION bump_session_version('id');
