-- The record footer names what the proposing twin worked as: copied from the proposal when it is applied.
-- Null for a change a person made and for every version written before (their footer keeps the twins phrase).
ALTER TABLE "program_record_versions" ADD COLUMN     "working_as" TEXT;
