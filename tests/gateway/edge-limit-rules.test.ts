// The edge's limits as rules, without a server: the document size and token limits at parse, the depth, alias, cost
// and directive limits at validation, input sizes, and what the error formatter leaves out in production. The same
// limits through the gateway on both transports: edge-parity.test.ts. Pure: runs in the mutation-testing run.
import { buildSchema, parse, validate, type GraphQLFormattedError } from 'graphql'
import { describe, expect, it } from 'vitest'
import { checkInputSize, edgeValidationRules, formatEdgeError, LIMITS, parseLimited, EDGE_CODES } from '../../gateway/edge-limits'

const schema = buildSchema(`
  type Item { id: ID title: String status: String kind: String child: Item }
  type Page { nodes: [Item] }
  type Query { items(first: Int, last: Int): Page  twinsExport(first: Int): Page  item: Item }
`)
const DEV = { production: false, stackTraces: false }
const PROD = { production: true, stackTraces: false }
const errorsOf = (query: string, mode = DEV) => validate(schema, parse(query), edgeValidationRules(mode)).map((e) => ({ message: e.message, code: e.extensions.code }))
/** Seven pages of 100 and one of `last`: each item costs 14 (2 for the page, 1.5 × (2 + 1.5 × 4) for nodes and four fields). */
const paged = (last: number, arg = 'first') =>
  `{ ${[...Array.from({ length: 7 }, () => 100), last].map((n, i) => `p${i}: items(${arg}: ${n}) { nodes { id kind status title } }`).join(' ')} }`

describe('the cost limit', () => {
  it('is 10,000: seven pages of 100 and one of 14 (9,996) pass, one of 15 (10,010) is refused, by first or by last', () => {
    expect(LIMITS.maxCost).toBe(10_000)
    expect(errorsOf(paged(14))).toEqual([])
    expect(errorsOf(paged(15))).toEqual([{ message: 'Query Cost limit of 10000 exceeded, found 10010.', code: EDGE_CODES.validation }])
    expect(errorsOf(paged(15, 'last'))).toEqual([{ message: 'Query Cost limit of 10000 exceeded, found 10010.', code: EDGE_CODES.validation }])
    expect(errorsOf(paged(15), PROD)).toEqual([{ message: 'The query is too expensive.', code: EDGE_CODES.validation }])
  })

  it('counts a page size the field refuses (over its largest page) as one item, so the field\'s own range error answers', () => {
    expect(errorsOf('{ items(first: 100000) { nodes { id } } }')).toEqual([])
    expect(errorsOf('{ a: items(first: 101) { nodes { id kind status title } } b: items(first: 100) { nodes { id kind status title } } }')).toEqual([])
    // the export's largest page is larger: its sizes count in full, in a fragment too
    const exports = (n: number) => Array.from({ length: 3 }, (_, i) => `e${i}: twinsExport(first: ${n}) { nodes { id kind status title } }`).join(' ')
    expect(errorsOf(`{ ${exports(300)} }`)).toEqual([{ message: 'Query Cost limit of 10000 exceeded, found 12600.', code: EDGE_CODES.validation }])
    expect(errorsOf(`{ ...F } fragment F on Query { ${exports(300)} }`)).toHaveLength(1)
    expect(errorsOf(`{ ${exports(301)} }`)).toEqual([])
    expect(errorsOf('{ ...F } fragment F on Query { items(first: 100000) { nodes { id kind status title } } }')).toEqual([])
  })
})

describe('the validation limits', () => {
  const nest = (n: number) => `{ item { ${'child { '.repeat(n)}id${' }'.repeat(n)} } }`
  // (so deep a selection is also over the cost limit: only the depth refusal is looked at here)
  const depthErrors = (query: string, mode = DEV) => errorsOf(query, mode).filter((e) => !/cost|expensive/i.test(e.message))
  it('refuse a query deeper than 24 and let one of 24 through', () => {
    expect(LIMITS.maxDepth).toBe(24)
    expect(depthErrors(nest(22))).toEqual([])
    expect(depthErrors(nest(23))).toEqual([{ code: EDGE_CODES.validation, message: 'Query depth limit of 24 exceeded, found 25.' }])
    expect(depthErrors(nest(23), PROD)).toEqual([{ code: EDGE_CODES.validation, message: 'The query is nested too deeply.' }])
  })

  it('refuse more than 20 aliases and more than 30 directives', () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: item { id }`).join(' ')} }`
    expect(errorsOf(aliases(20))).toEqual([])
    expect(errorsOf(aliases(21), PROD)).toEqual([{ code: EDGE_CODES.validation, message: 'The query uses too many aliases.' }])
    const directives = (n: number) => `{ item { id ${'@include(if: true) '.repeat(n)} } }`
    expect(errorsOf(directives(30))).toEqual([])
    expect(errorsOf(directives(31), PROD)).toEqual([{ code: EDGE_CODES.validation, message: 'The query uses too many directives.' }])
  })
})

describe('parsing and input sizes', () => {
  it('refuses an empty or missing document, one over 100,000 characters and one over 3,000 tokens, all GRAPHQL_PARSE_FAILED', () => {
    const code = (f: () => unknown) => { try { f(); return 'parsed' } catch (e) { return [(e as { extensions: { code: string } }).extensions.code, (e as Error).message] } }
    expect(code(() => parseLimited('', DEV))).toEqual([EDGE_CODES.parse, 'The request carries no GraphQL document.'])
    expect(code(() => parseLimited(undefined, DEV))).toEqual([EDGE_CODES.parse, 'The request carries no GraphQL document.'])
    expect(code(() => parseLimited(`{ item { id } } #${'x'.repeat(LIMITS.maxDocumentChars)}`, DEV))).toEqual([EDGE_CODES.parse, 'Syntax Error: The document is longer than 100000 characters.'])
    expect(code(() => parseLimited(`{ item { id } } #${'x'.repeat(LIMITS.maxDocumentChars)}`, PROD))).toEqual([EDGE_CODES.parse, 'Syntax Error: The document is too large.'])
    expect(code(() => parseLimited(`{ item { id } } #${'x'.repeat(LIMITS.maxDocumentChars - 20)}`, DEV))).toBe('parsed')
    expect(code(() => parseLimited(`{ item { ${'id '.repeat(2990)} } }`, DEV))).toBe('parsed')
    expect(code(() => parseLimited(`{ item { ${'id '.repeat(3000)} } }`, DEV))).toEqual([EDGE_CODES.parse, expect.stringMatching(/tokens/)])
    expect(code(() => parseLimited('{ item { id ', DEV))).toEqual([EDGE_CODES.parse, expect.stringMatching(/Syntax Error/)])
  })

  it('refuses a string over 65,536 characters and a list over 20,000 items, in the document or in the variables', () => {
    const refused = (query: string, variables: unknown, mode = DEV) => { try { checkInputSize(parse(query), variables, mode); return null } catch (e) { return [(e as { extensions: { code: string } }).extensions.code, (e as Error).message] } }
    const q = '{ item { id } }'
    expect(refused(q, { s: 'x'.repeat(LIMITS.maxStringChars) })).toBeNull()
    expect(refused(q, { s: 'x'.repeat(LIMITS.maxStringChars + 1) })).toEqual([EDGE_CODES.inputTooLarge, 'The string at $s is longer than 65536 characters.'])
    expect(refused(q, { deep: { list: [{ s: 'x'.repeat(LIMITS.maxStringChars + 1) }] } })).toEqual([EDGE_CODES.inputTooLarge, 'The string at $deep.list[0].s is longer than 65536 characters.'])
    expect(refused(q, { l: Array(LIMITS.maxListItems).fill(1) })).toBeNull()
    expect(refused(q, { l: Array(LIMITS.maxListItems + 1).fill(1) }, PROD)).toEqual([EDGE_CODES.inputTooLarge, 'The list at $l is too large.'])
    expect(refused(`{ item(x: "${'x'.repeat(LIMITS.maxStringChars + 1)}") { id } }`, {}, PROD)).toEqual([EDGE_CODES.inputTooLarge, 'The string in the document is too large.'])
    expect(refused(`{ item(x: [${Array(LIMITS.maxListItems + 1).fill(1).join(',')}]) { id } }`, {})).toEqual([EDGE_CODES.inputTooLarge, 'The list in the document is longer than 20000 items.'])
  })
})

describe('the error formatter', () => {
  const fmt = (e: GraphQLFormattedError, mode = PROD) => formatEdgeError(e, undefined, mode)
  it('drops suggestions and the token figure in production only, and never sends the http status, the subgraph name or a stack unless asked', () => {
    const typo = { message: 'Cannot query field "usr" on type "Me". Did you mean "user"?', extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 }, serviceName: 'twins', stacktrace: ['at x'] } }
    expect(fmt(typo)).toEqual({ message: 'Cannot query field "usr" on type "Me".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })
    expect(fmt(typo, DEV)).toEqual({ message: typo.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })
    expect(fmt(typo, { production: false, stackTraces: true })).toEqual({ message: typo.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED', stacktrace: ['at x'] } })
    const tokens = { message: 'Syntax Error: Document contains more that 3000 tokens. Parsing aborted.', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }
    expect(fmt(tokens).message).toBe('Syntax Error: The document has too many tokens.')
    expect(fmt(tokens, DEV).message).toBe(tokens.message)
  })
})

describe('the edges of the limits', () => {
  const thrown = (f: () => unknown) => { try { f(); return null } catch (e) { return { message: (e as Error).message, extensions: (e as { extensions: object }).extensions } } }
  it('parses a document of exactly 100,000 characters, and answers a refusal with status 400 and its code', () => {
    const exactly = `{ item { id } } #${'x'.repeat(LIMITS.maxDocumentChars - 17)}`
    expect(exactly.length).toBe(LIMITS.maxDocumentChars)
    expect(thrown(() => parseLimited(exactly, DEV))).toBeNull()
    expect(thrown(() => parseLimited(exactly + 'x', DEV))).toMatchObject({ extensions: { code: EDGE_CODES.parse, http: { status: 400 } } })
    expect(thrown(() => parseLimited('{ item { id ', DEV))).toMatchObject({ extensions: { code: EDGE_CODES.parse, http: { status: 400 } } })
    expect(thrown(() => parseLimited(42, DEV))).toMatchObject({ message: 'The request carries no GraphQL document.', extensions: { code: EDGE_CODES.parse, http: { status: 400 } } })
  })

  it('takes strings and lists of exactly the limit, in the document, and null or scalar variables as they are', () => {
    const q = (literal: string) => parse(`{ item(x: ${literal}) { id } }`)
    expect(thrown(() => checkInputSize(q(`"${'x'.repeat(LIMITS.maxStringChars)}"`), {}, DEV))).toBeNull()
    expect(thrown(() => checkInputSize(q(`[${Array(LIMITS.maxListItems).fill(1).join(',')}]`), {}, DEV))).toBeNull()
    expect(thrown(() => checkInputSize(parse('{ item { id } }'), null, DEV))).toBeNull()
    expect(thrown(() => checkInputSize(parse('{ item { id } }'), 'not an object', DEV))).toBeNull()
    expect(thrown(() => checkInputSize(parse('{ item { id } }'), { a: null, b: 3, c: { d: null } }, DEV))).toBeNull()
    expect(thrown(() => checkInputSize(q(`"${'x'.repeat(LIMITS.maxStringChars + 1)}"`), {}, DEV))).toMatchObject({ extensions: { code: EDGE_CODES.inputTooLarge, http: { status: 400 } } })
  })

  it('clamps only literal page sizes of first and last, never another argument or a variable', () => {
    const page = (args: string) => `{ ${Array.from({ length: 8 }, (_, i) => `p${i}: items(${args}) { nodes { id kind status title } }`).join(' ')} }`
    // 8 × 14 × 101 is over the limit only when the size counts in full
    expect(errorsOf(page('first: 101'))).toEqual([])
    expect(errorsOf(page('last: 101'))).toEqual([])
    expect(validate(schema, parse(`query($n: Int) ${page('first: $n')}`), edgeValidationRules(DEV))).toEqual([])
    const other = buildSchema('type Item { id: ID kind: String status: String title: String } type Page { nodes: [Item] } type Query { items(first: Int, size: Int): Page }')
    const costs = (args: string) => validate(other, parse(page(args)), edgeValidationRules(DEV)).map((e) => e.message)
    expect(costs('size: 101, first: 100')).toEqual(['Query Cost limit of 10000 exceeded, found 11200.'])
  })

  it('drops a subgraph fetch\'s response from an error, whatever made it', () => {
    const withResponse = { message: 'Boom', extensions: { code: 'INTERNAL_SERVER_ERROR', response: { url: 'http://twins/graphql', status: 500 } } }
    const out = formatEdgeError(withResponse, undefined, DEV)
    expect(JSON.stringify(out)).not.toMatch(/response|twins\/graphql/)
    expect(formatEdgeError({ message: 'No extensions' }, undefined, DEV)).toEqual({ message: 'No extensions', extensions: expect.any(Object) })
  })
})

