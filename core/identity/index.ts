// The face of core/identity: what code outside the concept may use.
export * from './auth'
export * from './release'
export * from './session-cache'
export * from './session'
export * from './workbench-roles'
