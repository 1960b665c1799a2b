// The face of domain/audit: what code outside the concept may use.
export * from './audit-hooks'
export * from './audit-trail'
