// Owns the edge's check of custom scalar values (core/text/scalars.ts), the same on HTTP and graphql-ws: a composed
// supergraph knows a custom scalar by name only and would accept any value, which the subgraph then refused with a
// 400 that reached the caller as a server fault. Variables are checked where they are coerced (the API schema's
// scalars get the parsers), literals and variable defaults by a validation rule that names the argument.
import {
  GraphQLError, isInputObjectType, isListType, isNonNullType, isScalarType, Kind, print, typeFromAST,
  type GraphQLInputType, type GraphQLSchema, type ValidationContext, type ValidationRule, type ValueNode,
} from 'graphql'
import { SCALAR_FORMATS, ScalarValueError } from '../core/text'

/** The code of a value the caller sent that its type refuses (Apollo's, as for variables that do not coerce). */
export const BAD_USER_INPUT = 'BAD_USER_INPUT'

/**
 * Gives the API schema's custom scalars their parsers, so variables that are not of a scalar's format fail coercion
 * (BAD_USER_INPUT, 'Variable "$until" got invalid value ...; DateTime must be ...'). Literals keep the composed
 * schema's lenient parser: customScalarLiteralsRule reports them once, with the argument's name.
 */
export function installScalarParsers(schema: GraphQLSchema) {
  for (const [name, format] of Object.entries(SCALAR_FORMATS)) {
    const type = schema.getType(name)
    if (!isScalarType(type)) continue
    // graphql-js reads these properties at coercion time; the composed schema has no other way to learn them
    Object.assign(type, {
      parseValue: (value: unknown) => {
        const parsed = format.parse(value)
        if (parsed === undefined) throw new ScalarValueError(name, format.expected)
        return value // the gateway forwards the caller's variables as sent: the subgraph parses them again
      },
    })
  }
}

/** Refuses a literal (argument or variable default) a custom scalar would not parse: BAD_USER_INPUT naming where it is. */
export const customScalarLiteralsRule: ValidationRule = (context: ValidationContext) => {
  const check = (value: ValueNode, type: GraphQLInputType, where: string) => {
    if (value.kind === Kind.VARIABLE || value.kind === Kind.NULL) return // variables are checked when coerced
    if (isNonNullType(type)) return check(value, type.ofType, where)
    if (isListType(type)) {
      if (value.kind === Kind.LIST) value.values.forEach((item, i) => check(item, type.ofType, `${where}[${i}]`))
      else check(value, type.ofType, where) // a single value stands for a list of one
      return
    }
    if (isInputObjectType(type)) {
      if (value.kind !== Kind.OBJECT) return // graphql's own rule refuses it
      const fields = type.getFields()
      for (const field of value.fields) {
        const def = fields[field.name.value]
        if (def) check(field.value, def.type, `${where}.${field.name.value}`)
      }
      return
    }
    const format = SCALAR_FORMATS[type.name]
    if (!format) return
    if (value.kind === Kind.STRING && format.parse(value.value) !== undefined) return
    context.reportError(new GraphQLError(`${where} must be ${format.expected}; got ${print(value)}.`, {
      nodes: value, extensions: { code: BAD_USER_INPUT },
    }))
  }
  return {
    Argument(node) {
      const def = context.getArgument()
      if (def) check(node.value, def.type, node.name.value)
    },
    VariableDefinition(node) {
      if (!node.defaultValue) return
      const type = typeFromAST(context.getSchema(), node.type)
      if (type) check(node.defaultValue, type as GraphQLInputType, `$${node.variable.name.value}`)
    },
  }
}
