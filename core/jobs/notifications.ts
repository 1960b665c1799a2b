// Owns notifications and the e-mail outbox: writing them in the caller's transaction and delivering due e-mail.
import nodemailer from 'nodemailer'
import { asTx, type AnyTx, type Db } from '../database'
import { log } from '../config'
import { claimDueEmailsAcrossOrganisations } from '../sql'
import { enqueue } from './jobs'
import { afterQuietHours, personTime } from '../text'

/** Kinds added by the twins document (R3, R4); the e-mailed ones also get an outbox row. */
export const NOTIFICATION_KINDS_ADDED = ['handoff_received', 'digest', 'twin_paused', 'mention', 'decision_reminder', 'stage_ready'] as const
export const EMAILED_KINDS: ReadonlySet<string> = new Set(['handoff_received', 'digest'])

export interface NotifyInput {
  organizationId: string
  programId?: string | null
  userId: string
  kind: string
  payload?: Record<string, unknown>
  deliverAfter?: Date
  email?: { to: string; subject: string; body: string }
}

/** Writes the notification (and, for e-mailed kinds, its outbox row plus the delivery job) in `tx`. */
export async function notify(anyTx: AnyTx, input: NotifyInput) {
  const tx = asTx(anyTx)
  const deliverAfter = input.deliverAfter ?? new Date()
  const notification = await tx.notification.create({
    data: {
      organizationId: input.organizationId, programId: input.programId ?? null, userId: input.userId,
      kind: input.kind, payload: (input.payload ?? {}) as object, deliverAfter,
    },
  })
  if (input.email && EMAILED_KINDS.has(input.kind)) {
    const outbox = await tx.emailOutbox.create({
      data: {
        organizationId: input.organizationId, notificationId: notification.id, toAddress: input.email.to,
        subject: input.email.subject, body: input.email.body, deliverAfter,
      },
    })
    await enqueue(tx, 'deliver_email', { outboxId: outbox.id }, { runAt: deliverAfter, jobKey: `deliver_email:${outbox.id}` })
  }
  return notification
}

/** The notification kinds of the twins document this service writes (R3; stage_ready at R4, by stage gates). */
export type PersonNotificationKind = 'handoff_received' | 'digest' | 'twin_paused' | 'mention' | 'decision_reminder' | 'stage_ready'

export interface NotifyPersonInput {
  organizationId: string
  programId?: string | null
  userId: string
  kind: PersonNotificationKind
  payload?: Record<string, unknown>
  /** Not before this moment (a digest's time); quiet hours may move it later, never earlier. Default now. */
  notBefore?: Date
  /** Required for e-mailed kinds (handoff_received, digest); ignored for the others. */
  email?: { subject: string; body: string }
  now?: Date
}

/**
 * Notifies a person with their quiet hours respected: deliver_after is `notBefore` (default now) moved to the end of
 * the quiet hours it falls in (users.settings quiet_hours, timezone). E-mailed kinds go to the person's address through
 * the outbox with the same deliver_after, so nothing reaches them, in the app or by e-mail, during quiet hours.
 */
export async function notifyPerson(anyTx: AnyTx, input: NotifyPersonInput) {
  const tx = asTx(anyTx)
  const user = await tx.user.findFirstOrThrow({ where: { id: input.userId, organizationId: input.organizationId }, select: { email: true, settings: true } })
  const deliverAfter = afterQuietHours(input.notBefore ?? input.now ?? new Date(), personTime(user.settings))
  return notify(tx, {
    organizationId: input.organizationId, programId: input.programId, userId: input.userId, kind: input.kind,
    payload: input.payload, deliverAfter,
    email: input.email && EMAILED_KINDS.has(input.kind) ? { to: user.email, ...input.email } : undefined,
  })
}

export interface DeliveryReport { sent: number; held: number; failed: number }

const MAX_ATTEMPTS = 5

/**
 * Delivers due outbox e-mail: over SMTP when `smtpUrl` is set, else marks them held (nothing leaves the
 * machine). Rows are claimed with SKIP LOCKED so two workers never send the same e-mail.
 */
export async function deliverDueEmails(db: Db, opts: { smtpUrl?: string; from: string; now?: Date; onlyId?: string; limit?: number }): Promise<DeliveryReport> {
  const now = opts.now ?? new Date()
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : null
  const report: DeliveryReport = { sent: 0, held: 0, failed: 0 }
  try {
    await db.$transaction(async (tx) => {
      const due = await claimDueEmailsAcrossOrganisations(tx, { now, onlyId: opts.onlyId ?? null, limit: opts.limit ?? 100 })
      for (const row of due) {
        if (!transport) {
          await tx.emailOutbox.update({ where: { id: row.id }, data: { status: 'held', attempts: row.attempts } })
          report.held++
          continue
        }
        try {
          await transport.sendMail({ from: opts.from, to: row.to_address, subject: row.subject, text: row.body })
          await tx.emailOutbox.update({ where: { id: row.id }, data: { status: 'sent', sentAt: new Date(), attempts: row.attempts + 1, lastError: null } })
          report.sent++
        } catch (err) {
          const attempts = row.attempts + 1
          // The message names the SMTP failure, never the URL (it may carry credentials).
          const reason = (err as Error).message.replace(/smtps?:\/\/\S+/gi, '[smtp]')
          await tx.emailOutbox.update({
            where: { id: row.id },
            data: { attempts, lastError: reason, status: attempts >= MAX_ATTEMPTS ? 'failed' : 'pending' },
          })
          report.failed++
          log.warn('email.send_failed', { outboxId: row.id, attempts, reason })
        }
      }
    }, { timeout: 60_000 })
  } finally {
    transport?.close()
  }
  return report
}
