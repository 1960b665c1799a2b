-- Workbench roles (issue 14). A twin run records the persona harness and the workbench role it started under: a
-- running harness never changes inside a run, whatever the person picks meanwhile.

-- AlterTable
ALTER TABLE "agent_runs" ADD COLUMN     "harness_key" TEXT,
ADD COLUMN     "workbench_role_key" TEXT;

-- The fallback to the neutral persona harness is audited once per person and program (workbench_role.default_applied):
-- the writer checks under a lock, and this index makes a second row impossible whoever writes.
CREATE UNIQUE INDEX "audit_events_default_applied_once" ON "audit_events" ("organization_id", "program_id", "target_id")
  WHERE action = 'workbench_role.default_applied';

-- Who set a person's workbench role in a program, and when ('Set by <Name> on <date>. Change'): the latest
-- workbench_role.set or workbench_role.assign row of that person and program.
CREATE INDEX "audit_events_workbench_role_latest" ON "audit_events" ("program_id", "target_id", "entry_seq")
  WHERE action IN ('workbench_role.set', 'workbench_role.assign');
