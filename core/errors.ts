// Owns the error vocabulary: domain errors carry the specification's codes; auth failures are top-level.
import { GraphQLError } from 'graphql'
import type { z } from 'zod'

/** A refusal the caller can act on; surfaces as a typed error object in a mutation's result union. */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: { field?: string; status?: number; details?: Record<string, unknown> } = {},
  ) {
    super(message)
    this.name = 'DomainError'
  }
  get field() { return this.extra.field }
}

export class NotFoundError extends DomainError {
  constructor(what: string) { super('not_found', `${what} was not found.`, { status: 404 }) }
}

export function unauthenticated(message = 'Authentication required: send a valid bearer token.'): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } })
}

export function forbidden(permission: string): GraphQLError {
  return new GraphQLError(`You do not hold the permission ${permission} here.`, {
    // No HTTP status: a refused field is a partial result, never a failed request for the other fields.
    extensions: { code: 'FORBIDDEN', permission },
  })
}

export function isGraphQLError(e: unknown): e is GraphQLError {
  return e instanceof GraphQLError
}

/** Validates input with a zod schema; the first problem becomes invalid_input naming its field (422). */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input)
  if (!r.success) {
    const issue = r.error.issues[0]
    throw new DomainError('invalid_input', `${issue.path.join('.') || 'input'}: ${issue.message}`, { field: issue.path.join('.'), status: 422 })
  }
  return r.data
}
