// The face of domain/memory: what code outside the concept may use.
export * from './questions'
export * from './recall'
export * from './records'
export * from './retention'
export * from './scrubber'
export * from './store'
export * from './summary'
