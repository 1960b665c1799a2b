// The face of request budgets (rate_budgets): one BudgetGate per connection (a connection's window within its
// organisation's: connection-gate.ts) or per platform-scoped source (a shared window split by the fair-share policy:
// fair-share.ts), every statement in sql.ts. Exhaustion is a typed RateLimited, never a wait.
export { BudgetExhausted, PgBudgetGate, REMOTE_RESERVE, isVendorRateLimit, type BudgetGateOptions } from './connection-gate'
export { FairShareBudgetGate, fairShare, type SharedWindow } from './fair-share'
export { ensureSharedBudgetAcrossOrganisations } from './sql'
