// Fixed-window request counters that fakes use to emit vendor rate-limit headers and 429s.

export interface WindowDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the current window ends (at least 1). */
  resetSeconds: number
}

export interface WindowConfig {
  limit: number
  windowSeconds: number
}

export class FixedWindowLimiter {
  private readonly windows = new Map<string, { startedAt: number; used: number }>()

  constructor(
    private config: WindowConfig,
    private readonly now: () => number = Date.now,
  ) {}

  configure(config: Partial<WindowConfig>): void {
    this.config = { ...this.config, ...config }
    this.windows.clear()
  }

  get settings(): WindowConfig {
    return { ...this.config }
  }

  /** Counts one request for `key`; a refused request does not use up the window. */
  take(key: string): WindowDecision {
    const decision = this.peek(key)
    if (decision.allowed) {
      const w = this.windows.get(key)!
      w.used += 1
      decision.remaining = Math.max(0, this.config.limit - w.used)
    }
    return decision
  }

  /** The state of the window for `key` without counting a request. */
  peek(key: string): WindowDecision {
    const now = this.now()
    const windowMs = this.config.windowSeconds * 1000
    let w = this.windows.get(key)
    if (!w || now - w.startedAt >= windowMs) {
      w = { startedAt: now, used: 0 }
      this.windows.set(key, w)
    }
    const resetSeconds = Math.max(1, Math.ceil((w.startedAt + windowMs - now) / 1000))
    const allowed = w.used < this.config.limit
    return { allowed, limit: this.config.limit, remaining: Math.max(0, this.config.limit - w.used), resetSeconds }
  }

  reset(): void {
    this.windows.clear()
  }
}
