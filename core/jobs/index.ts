// The face of core/jobs: what code outside the concept may use.
export * from './command'
export * from './component'
export * from './jobs'
export * from './notifications'
