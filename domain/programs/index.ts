// The face of domain/programs: what code outside the concept may use.
export * from './programs'
export * from './user-settings'
export * from './workbench-roles'
