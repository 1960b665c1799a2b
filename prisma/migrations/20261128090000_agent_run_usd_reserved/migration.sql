-- AlterTable
ALTER TABLE "agent_runs" ADD COLUMN     "usd_reserved" DECIMAL(18,6) NOT NULL DEFAULT 0;
