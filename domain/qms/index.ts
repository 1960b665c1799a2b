// The face of domain/qms: what code outside the concept may use.
export * from './adapter'
export * from './client'
export * from './demo'
export * from './review'
export * from './run'
