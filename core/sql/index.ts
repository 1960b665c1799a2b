// The face of core/sql: what code outside the concept may use.
export * from './audit-chain'
export * from './notifications'
export * from './plumbing'
export * from './sessions'
