// Owns what every literature source client shares: the VendorHttpClient (got with timeouts and retries) with the
// source's budget drawn before each attempt, its rate headers fed back, and a 429 holding the source for everyone.
import { egressAgents } from '../../core/http'
import { RateLimited } from '../adapters'
import { VendorHttpClient, type RawAnswer } from '../adapters'
import type { SourceBudget } from './budget'
import { literatureTimeoutMs, sourceBaseUrl } from './config'
import type { SourceId } from './sources'

export class SourceClient {
  readonly http: VendorHttpClient
  constructor(readonly source: SourceId, readonly budget: SourceBudget) {
    this.http = new VendorHttpClient({
      baseUrl: sourceBaseUrl(source), source, timeoutMs: literatureTimeoutMs(), retries: 1, retryBaseDelayMs: 100,
      beforeRequest: () => budget.take(), agent: egressAgents(),
    })
  }

  /** GET with the budget drawn per attempt; rate headers go to the budget, a 429 holds the source for everyone. */
  protected async get(path: string, searchParams: Record<string, string>, resource: string, accept = 'application/json', headers: Record<string, string> = {}): Promise<RawAnswer | null> {
    let answer: RawAnswer
    try {
      answer = await this.http.send('GET', path, { searchParams, headers: { accept, ...headers } })
    } catch (e) {
      if (e instanceof RateLimited) await this.budget.backOff(e.retryAfterSeconds)
      throw e
    }
    await this.budget.observe(answer.headers as Record<string, string>)
    if (answer.status === 404) return null
    this.http.throwForStatus(answer, resource)
    return answer
  }

  protected async getJson(path: string, searchParams: Record<string, string>, resource: string, headers: Record<string, string> = {}): Promise<unknown> {
    const answer = await this.get(path, searchParams, resource, 'application/json', headers)
    return answer ? this.http.parseJson(answer) : null
  }
}

export const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null)
export const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})
