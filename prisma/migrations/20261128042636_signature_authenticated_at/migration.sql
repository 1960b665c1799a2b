-- AlterTable
ALTER TABLE "signatures" ADD COLUMN     "authenticated_at" TIMESTAMPTZ(3);
