-- AlterTable
ALTER TABLE "tool_calls" ADD COLUMN     "summary" JSONB;
