// The face of domain/documents: what code outside the concept may use.
export * from './document-content'
export * from './document-reads'
export * from './documents'
export * from './requirement-set-reads'
