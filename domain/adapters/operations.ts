// Owns the names of the adapter contract's operations (contract.ts re-exports them): apart, so the vendor errors that
// name an operation (errors.ts) need nothing of the contract, which raises them.
/** Phase 1 operations, then the ones the specification adds. */
export const ADAPTER_OPERATIONS = [
  'describe', 'begin_connect', 'complete_connect', 'health_check', 'sync', 'handle_webhook', 'disconnect',
  'verify_webhook', 'list_changes', 'fetch_object', 'search', 'render_launch', 'budget',
] as const
export type AdapterOperation = (typeof ADAPTER_OPERATIONS)[number]
