// The face of core/database: what code outside the concept may use.
export * from './db-outage'
export * from './db'
export * from './hot-reads'
export * from './pagination'
export * from './postgres'
export * from './pubsub'
export * from './seed'
