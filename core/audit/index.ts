// The face of core/audit: what code outside the concept may use.
export * from './audit-chain'
export * from './audit'
