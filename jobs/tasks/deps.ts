// Owns what every task receives from the worker that runs it (jobs/worker.ts builds the task list with it).
import type { Db } from '../../core/database'

export interface WorkerDeps { db: Db; databaseUrl: string }
