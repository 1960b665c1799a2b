// The face of domain/home: what code outside the concept may use.
export * from './workbench-home'
