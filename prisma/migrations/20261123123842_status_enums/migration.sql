-- Statuses become database enums (state machines declared in core/states/, applied with core/state-machine.ts).
-- Converted in place with USING: existing rows keep their value, and a value outside the set fails the migration
-- instead of being dropped (Prisma's own draft dropped and recreated the columns).

-- CreateEnum
CREATE TYPE "agent_run_status" AS ENUM ('queued', 'running', 'interrupted', 'succeeded', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "tool_call_status" AS ENUM ('running', 'ok', 'refused', 'failed');

-- CreateEnum
CREATE TYPE "connection_status" AS ENUM ('active', 'disconnected');

-- AlterTable
ALTER TABLE "agent_runs" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "agent_run_status" USING "status"::"agent_run_status",
ALTER COLUMN "status" SET DEFAULT 'queued';

-- AlterTable: the enum replaces the CHECK connections_status_known.
ALTER TABLE "connections" DROP CONSTRAINT "connections_status_known";
ALTER TABLE "connections" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "connection_status" USING "status"::"connection_status",
ALTER COLUMN "status" SET DEFAULT 'active';

-- AlterTable
ALTER TABLE "tool_calls" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "tool_call_status" USING "status"::"tool_call_status",
ALTER COLUMN "status" SET DEFAULT 'ok';
