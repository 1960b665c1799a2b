import { describe, expect, it } from 'vitest'
import { runOnce } from 'graphile-worker'
import { notify } from '../../core/jobs'
import { parseEnv, setEnv, env } from '../../core/config'
import { createTaskList } from '../../jobs/worker'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'
import { startSmtpSink } from '../helpers/smtp-sink'

const t = useTestDatabase()

async function runWorkerOnce() {
  await runOnce({ connectionString: t.current.url, taskList: createTaskList({ db: t.current.db, databaseUrl: t.current.url }), noHandleSignals: true })
}

describe('notification e-mail outbox', () => {
  it('holds due e-mail when no SMTP_URL is configured, through a real worker job', async () => {
    setEnv({ ...env(), SMTP_URL: undefined })
    const { organization, users } = await createTenant(t.current.db)
    const n = await t.current.db.$transaction((tx) => notify(tx, {
      organizationId: organization.id, userId: users.scientist.id, kind: 'handoff_received',
      email: { to: users.scientist.email, subject: 'A hand-off waits for you', body: 'Open the inbox.' },
    }))
    const jobs = await t.current.db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM graphile_worker.jobs WHERE task_identifier = 'deliver_email'`
    expect(Number(jobs[0].n)).toBe(1)
    await runWorkerOnce()
    const row = await t.current.db.emailOutbox.findUniqueOrThrow({ where: { notificationId: n.id } })
    expect(row.status).toBe('held')
    expect(row.sentAt).toBeNull()
  })

  it('sends due e-mail over SMTP when SMTP_URL is set, and leaves e-mail due later alone', async () => {
    const sink = await startSmtpSink()
    try {
      setEnv(parseEnv({ ...process.env, DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir, SMTP_URL: sink.url }))
      const { organization, users } = await createTenant(t.current.db)
      const [now, later] = await t.current.db.$transaction(async (tx) => [
        await notify(tx, { organizationId: organization.id, userId: users.program_lead.id, kind: 'digest',
          email: { to: users.program_lead.email, subject: 'Your digest', body: 'Two decisions wait.' } }),
        await notify(tx, { organizationId: organization.id, userId: users.program_lead.id, kind: 'digest', deliverAfter: new Date(Date.now() + 3600_000),
          email: { to: users.program_lead.email, subject: 'Later digest', body: 'Tomorrow.' } }),
      ])
      await runWorkerOnce()
      expect((await t.current.db.emailOutbox.findUniqueOrThrow({ where: { notificationId: now.id } })).status).toBe('sent')
      expect((await t.current.db.emailOutbox.findUniqueOrThrow({ where: { notificationId: later.id } })).status).toBe('pending')
      expect(sink.received).toHaveLength(1)
      expect(sink.received[0].data).toContain('Subject: Your digest')
      expect(sink.received[0].to.join()).toContain(users.program_lead.email)
    } finally {
      await sink.close()
    }
  })

  it('writes no outbox row for a kind that is not e-mailed', async () => {
    const { organization, users } = await createTenant(t.current.db)
    const n = await t.current.db.$transaction((tx) => notify(tx, {
      organizationId: organization.id, userId: users.viewer.id, kind: 'twin_paused', email: { to: users.viewer.email, subject: 's', body: 'b' },
    }))
    expect(await t.current.db.emailOutbox.count({ where: { notificationId: n.id } })).toBe(0)
  })
})
