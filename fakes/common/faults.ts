// Misbehaviour a test can order from a fake: slow answers, forced 429s, forced 5xx, limited to a path prefix.

export interface FaultSettings {
  /** Delay added before every matching answer. */
  delayMs: number
  /** The next N matching requests answer 429. */
  rateLimitNext: number
  /** Value of the reset header on a forced 429 (seconds). */
  rateLimitResetSeconds: number
  /** The next N matching requests answer `serverErrorStatus`. */
  serverErrorNext: number
  serverErrorStatus: number
  /** Only requests whose path starts with this prefix are affected (all when empty). */
  pathPrefix: string
}

export type FaultDecision =
  | { kind: 'none'; delayMs: number }
  | { kind: 'rate_limit'; delayMs: number; resetSeconds: number }
  | { kind: 'server_error'; delayMs: number; status: number }

export const NO_FAULTS: FaultSettings = Object.freeze({
  delayMs: 0,
  rateLimitNext: 0,
  rateLimitResetSeconds: 7,
  serverErrorNext: 0,
  serverErrorStatus: 503,
  pathPrefix: '',
})

export class FaultPlan {
  private settings: FaultSettings = { ...NO_FAULTS }

  /** Merges the given settings into the current plan. */
  set(changes: Partial<FaultSettings>): FaultSettings {
    this.settings = { ...this.settings, ...changes }
    return this.current
  }

  clear(): void {
    this.settings = { ...NO_FAULTS }
  }

  get current(): FaultSettings {
    return { ...this.settings }
  }

  /** Consumes one forced fault for a request on `path`, if any applies. */
  next(path: string): FaultDecision {
    const s = this.settings
    if (s.pathPrefix && !path.startsWith(s.pathPrefix)) return { kind: 'none', delayMs: 0 }
    if (s.serverErrorNext > 0) {
      s.serverErrorNext -= 1
      return { kind: 'server_error', delayMs: s.delayMs, status: s.serverErrorStatus }
    }
    if (s.rateLimitNext > 0) {
      s.rateLimitNext -= 1
      return { kind: 'rate_limit', delayMs: s.delayMs, resetSeconds: s.rateLimitResetSeconds }
    }
    return { kind: 'none', delayMs: s.delayMs }
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
