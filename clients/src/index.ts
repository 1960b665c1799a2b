// @evidence-workspace/client: the client factory, typed documents for every operation the web console uses and every
// documentation example (with their result and variables types), the API schema's types (as Schema), and Apollo
// Client's possibleTypes. The schema itself is `@evidence-workspace/client/schema.graphql`; the code generator
// set-up a consumer copies to type their own operations is `@evidence-workspace/client/codegen.ts`.
export { createWorkspaceClient, WorkspaceRequestError, type WorkspaceClient, type WorkspaceClientOptions } from './client.js'
export * from './generated/graphql.js'
export type * as Schema from './generated/schema.js'
export { possibleTypes } from './generated/possible-types.js'
