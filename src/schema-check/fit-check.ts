import { Option, ParseResult, Schema, SchemaAST } from "effect"

/**
 * `Schema.is` compiled to plain predicates for the shapes store documents are checked against (structs, arrays,
 * unions, literals, strings, numbers, booleans and their refinements): the same answer, without the value
 * `Schema.is` builds on the way (a copy of every checked field of every document, the CLI's largest cost per
 * document after parsing it). Any other node is checked by `Schema.is` itself.
 */
type Check = (u: unknown) => boolean

/** The options `Schema.is` runs with: a required key must be present, even for a type that allows undefined. */
const OPTIONS: SchemaAST.ParseOptions = { exact: true }

const hasOwn = (u: object, key: PropertyKey) => Object.prototype.hasOwnProperty.call(u, key)

const struct = (ast: SchemaAST.TypeLiteral): Check => {
  const properties = ast.propertySignatures.map((p) => ({ name: p.name, optional: p.isOptional, check: compile(p.type) }))
  return (u) => {
    if (typeof u !== "object" || u === null || Array.isArray(u)) return false
    for (const p of properties) {
      if (hasOwn(u, p.name) ? !p.check((u as Record<PropertyKey, unknown>)[p.name]) : !p.optional) return false
    }
    return true
  }
}

const array = (item: Check): Check => (u) => {
  if (!Array.isArray(u)) return false
  for (const element of u) if (!item(element)) return false
  return true
}

const compile = (ast: SchemaAST.AST): Check => {
  switch (ast._tag) {
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "Refinement": {
      const from = compile(ast.from)
      return (u) => from(u) && Option.isNone(ast.filter(u, OPTIONS, ast))
    }
    case "Union": {
      const members = ast.types.map(compile)
      return (u) => members.some((m) => m(u))
    }
    case "TupleType":
      if (ast.elements.length === 0 && ast.rest.length === 1) return array(compile(ast.rest[0]!.type))
      break
    case "TypeLiteral":
      if (ast.indexSignatures.length === 0) return struct(ast)
      break
  }
  const is = ParseResult.is(Schema.make(ast))
  return (u) => is(u)
}

/** Whether `u` fits `schema`'s type: what `Schema.is(schema)` answers. */
export const fitCheck = <A, I, R>(schema: Schema.Schema<A, I, R>): (u: unknown) => u is A =>
  compile(SchemaAST.typeAST(schema.ast)) as (u: unknown) => u is A
