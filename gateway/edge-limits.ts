// Owns what the public edge refuses and how its errors read, the same on HTTP and graphql-ws: document size and
// token limits at parse, depth/alias/cost/directive limits at validation, input sizes, suggestions and stack traces.
import {
  GraphQLError, Kind, parse, visit,
  type ArgumentNode, type ASTNode, type DocumentNode, type GraphQLFormattedError, type OperationDefinitionNode, type ValidationRule,
} from 'graphql'
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth'
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases'
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit'
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives'
import { maskUnexpected } from '../core/http'
import { customScalarLiteralsRule } from './edge-scalars'
import { EXPORT_PAGE_MAX, PAGE_SIZE_MAX } from '../core/database'

export const LIMITS = {
  bodyBytes: '1mb',
  requestTimeoutMs: 30_000,
  /** characters of a GraphQL document; refused before any lexing */
  maxDocumentChars: 100_000,
  maxTokens: 3_000,
  // No type in the schema nests itself, so depth matters for introspection: the standard introspection
  // query (GraphiQL's) counts 21 with fragments flattened.
  maxDepth: 24,
  maxAliases: 20,
  maxCost: 10_000,
  maxDirectives: 30,
  /** any string in the document or the variables (the longest legitimate input is 2,000) */
  maxStringChars: 65_536,
  /** any list in the document or the variables, JSON values included (the longest legitimate one is 20,000) */
  maxListItems: 20_000,
} as const

export const EDGE_CODES = {
  parse: 'GRAPHQL_PARSE_FAILED',
  validation: 'GRAPHQL_VALIDATION_FAILED',
  inputTooLarge: 'INPUT_TOO_LARGE',
} as const

export interface EdgeMode {
  production: boolean
  /** Developer opt-in (GRAPHQL_STACK_TRACES=true outside production): stack traces in error responses. */
  stackTraces: boolean
}

const refusal = (message: string, code: string) => new GraphQLError(message, { extensions: { code, http: { status: 400 } } })

/** Parses a document under the size and token limits; every failure is GRAPHQL_PARSE_FAILED. */
export function parseLimited(source: unknown, mode: EdgeMode): DocumentNode {
  if (typeof source !== 'string' || !source) throw refusal('The request carries no GraphQL document.', EDGE_CODES.parse)
  checkDocumentSize(source, mode)
  try {
    return parse(source, { maxTokens: LIMITS.maxTokens })
  } catch (e) {
    const err = e as GraphQLError
    throw new GraphQLError(err.message, { nodes: err.nodes, source: err.source, positions: err.positions, extensions: { code: EDGE_CODES.parse, http: { status: 400 } } })
  }
}

/** The check that runs before the lexer sees the document (on HTTP the body limit comes first). */
export function checkDocumentSize(source: string, mode: EdgeMode) {
  if (source.length > LIMITS.maxDocumentChars) {
    throw refusal(mode.production ? 'Syntax Error: The document is too large.' : `Syntax Error: The document is longer than ${LIMITS.maxDocumentChars} characters.`, EDGE_CODES.parse)
  }
}

/**
 * The edge's own rules (added to graphql's): the limits, whose armor messages name the figures only outside
 * production, and the custom scalars' literals (./edge-scalars.ts).
 */
export function edgeValidationRules(mode: EdgeMode): ValidationRule[] {
  const exposeLimits = !mode.production
  const report = (message: string) => ({
    exposeLimits, errorMessage: message, propagateOnRejection: false,
    onReject: [(ctx: any, err: GraphQLError) => ctx?.reportError(new GraphQLError(err.message.replace(/^Syntax Error: /, ''), { extensions: { code: EDGE_CODES.validation } }))],
  })
  return [
    maxDepthRule({ n: LIMITS.maxDepth, ignoreIntrospection: false, ...report('The query is nested too deeply.') }),
    maxAliasesRule({ n: LIMITS.maxAliases, ...report('The query uses too many aliases.') }),
    pagesAtMostServed(costLimitRule({ maxCost: LIMITS.maxCost, ...report('The query is too expensive.') }) as ValidationRule),
    maxDirectivesRule({ n: LIMITS.maxDirectives, ...report('The query uses too many directives.') }),
    customScalarLiteralsRule,
  ] as ValidationRule[]
}

/** Page-size arguments the cost rule multiplies a selection's cost by. */
const PAGE_ARGUMENTS = new Set(['first', 'last'])
/** Lists whose largest page is not PAGE_SIZE_MAX (smaller ones need no entry: counting them larger only errs safe). */
const LARGER_PAGES: Readonly<Record<string, number>> = { twinsExport: EXPORT_PAGE_MAX }

/**
 * The cost rule, counting a literal page size its field refuses (above the field's largest page) as one item: that
 * field answers invalid_input on `first` with the range to ask for, which is what is wrong, where the cost limit
 * ('too expensive') answered first and named nothing the caller could fix. Sizes the field serves count in full.
 */
function pagesAtMostServed(rule: ValidationRule): ValidationRule {
  const clamp = <T extends ASTNode>(node: T): T => visit(node, {
    [Kind.FIELD]: (field) => {
      const largest = LARGER_PAGES[field.name.value] ?? PAGE_SIZE_MAX
      const refused = (arg: ArgumentNode) => PAGE_ARGUMENTS.has(arg.name.value) && arg.value.kind === Kind.INT && Number(arg.value.value) > largest
      if (!field.arguments?.some(refused)) return undefined
      return { ...field, arguments: field.arguments.map((arg) => refused(arg) ? { ...arg, value: { ...arg.value, value: '1' } } : arg) }
    },
  })
  return (context) => {
    // the rule reads the operation it is given and the fragments it looks up: both with page sizes clamped
    const clamped = Object.create(context, { getFragment: { value: (name: string) => { const f = context.getFragment(name); return f && clamp(f) } } })
    const visitor = rule(clamped) as { OperationDefinition?: { enter?: (node: OperationDefinitionNode) => void } }
    const enter = visitor.OperationDefinition?.enter
    return { ...visitor, OperationDefinition: { ...visitor.OperationDefinition, enter: (node: OperationDefinitionNode) => enter?.call(visitor, clamp(node)) } } as never
  }
}

const literalsWithinLimits = new WeakSet<DocumentNode>()

/** Refuses any string or list over the limits, in the document's literals and in the variables (JSON included). */
export function checkInputSize(document: DocumentNode, variables: unknown, mode: EdgeMode) {
  const tooLarge = (what: 'string' | 'list', where: string) => {
    const limit = what === 'string' ? `${LIMITS.maxStringChars} characters` : `${LIMITS.maxListItems} items`
    return refusal(mode.production ? `The ${what} ${where} is too large.` : `The ${what} ${where} is longer than ${limit}.`, EDGE_CODES.inputTooLarge)
  }
  // a document's literals never change: a cached document is walked once, only the variables on every request
  if (!literalsWithinLimits.has(document)) {
    visit(document, {
      [Kind.STRING]: (node) => { if (node.value.length > LIMITS.maxStringChars) throw tooLarge('string', 'in the document') },
      [Kind.LIST]: (node) => { if (node.values.length > LIMITS.maxListItems) throw tooLarge('list', 'in the document') },
    })
    literalsWithinLimits.add(document)
  }
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'string') { if (value.length > LIMITS.maxStringChars) throw tooLarge('string', `at ${path}`); return }
    if (Array.isArray(value)) {
      if (value.length > LIMITS.maxListItems) throw tooLarge('list', `at ${path}`)
      value.forEach((v, i) => walk(v, `${path}[${i}]`))
      return
    }
    if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`)
  }
  if (variables && typeof variables === 'object') for (const [k, v] of Object.entries(variables)) walk(v, `$${k}`)
}

const SUGGESTION = /\s*Did you mean [^?]*\?/g
const TOKEN_LIMIT = /Document contains more tha[nt] \d+ tokens\. Parsing aborted\./ // sic: graphql-js says 'more that'

/**
 * The one formatter for every error a caller receives over either transport: unexpected errors masked behind a
 * reference (logged once, here), no schema suggestions and no limit figures in production, no stack trace unless
 * a developer opted in.
 */
export function formatEdgeError(formatted: GraphQLFormattedError, error: unknown, mode: EdgeMode): GraphQLFormattedError {
  // Apollo's error of a failed subgraph fetch carries the fetch (URL, status, body) in `response`: never the caller's
  // to read, whatever made it. The data source no longer makes one (./subgraph-http.ts); should one come, it is
  // an unexpected fault, logged under the reference the caller gets.
  const response = formatted.extensions?.response
  const masked = (response !== undefined
    ? maskUnexpected({ message: formatted.message }, new Error(`Subgraph fetch failed: ${formatted.message}`, { cause: response }))
    : maskUnexpected(formatted, error)) as GraphQLFormattedError
  let message = masked.message
  if (mode.production) {
    message = message.replace(SUGGESTION, '').replace(TOKEN_LIMIT, 'The document has too many tokens.')
  }
  const extensions = { ...masked.extensions }
  if (!mode.stackTraces) { delete extensions.stacktrace; delete extensions.exception }
  delete extensions.http
  // The gateway adds the name of the subgraph that answered: internal topology, of no use to a caller.
  delete extensions.serviceName
  return { ...masked, message, extensions }
}
