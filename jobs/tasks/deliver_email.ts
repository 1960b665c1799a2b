// Task deliver_email: sends (or holds) due outbox e-mail; retried by graphile-worker while any attempt failed.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { deliverDueEmails } from '../../core/jobs'
import { env } from '../../core/config'
import type { WorkerDeps } from './deps'

export const deliverEmail = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { outboxId } = TaskPayloads.deliver_email.parse(payload ?? {})
  const report = await deliverDueEmails(deps.db, { smtpUrl: env().SMTP_URL, from: env().MAIL_FROM, onlyId: outboxId })
  helpers.logger.info(`deliver_email sent=${report.sent} held=${report.held} failed=${report.failed}`)
  if (report.failed > 0) throw new Error(`${report.failed} e-mail(s) could not be sent; will retry`)
}
