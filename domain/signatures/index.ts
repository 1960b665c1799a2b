// The face of domain/signatures: what code outside the concept may use.
export * from './signatures'
