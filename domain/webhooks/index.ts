// The face of domain/webhooks: what code outside the concept may use.
export * from './deliveries'
export * from './ingress'
export * from './process'
export * from './retention'
