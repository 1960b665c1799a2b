import { describe, expect, it } from 'vitest'
import { Broadcaster, SlowConsumerError, boundedQueue } from '../../core/database'

describe('bounded subscriber queues', () => {
  it('delivers in order to a subscriber that keeps up', async () => {
    const b = new Broadcaster<number>(4)
    const it1 = b.subscribe()
    for (const n of [1, 2, 3]) b.publish(n)
    expect([(await it1.next()).value, (await it1.next()).value, (await it1.next()).value]).toEqual([1, 2, 3])
  })

  it('closes a subscriber that falls behind with SlowConsumerError instead of buffering without bound', async () => {
    const b = new Broadcaster<number>(3)
    const slow = b.subscribe()
    const fast = b.subscribe()
    for (let n = 0; n < 10; n++) { b.publish(n); await fast.next() }
    await expect(slow.next()).rejects.toBeInstanceOf(SlowConsumerError)
    expect(b.size).toBe(1) // the slow one was removed; the fast one still listens
  })

  it('runs the close callback once when the consumer returns', async () => {
    let closed = 0
    const q = boundedQueue<number>(2, () => closed++)
    q.push(1)
    await q.iterator.return()
    await q.iterator.return()
    q.push(2)
    expect(closed).toBe(1)
    expect((await q.iterator.next()).done).toBe(true)
  })
})
