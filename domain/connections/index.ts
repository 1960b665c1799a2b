// The face of domain/connections: what code outside the concept may use.
export * from './connection-reads'
export * from './connections'
export * from './runtime'
export * from './source-status'
export * from './sql'
export * from './sync'
