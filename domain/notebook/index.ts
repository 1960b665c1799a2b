// The face of domain/notebook: what code outside the concept may use.
export * from './adapter'
export * from './canonical'
export * from './client'
export * from './demo'
export * from './launch'
export * from './webhook-signature'
