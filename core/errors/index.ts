// The face of core/errors: what code outside the concept may use.
export * from './catalogue'
export * from './errors'
