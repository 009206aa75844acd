// PHP reads `where[0][col]=email&tags[]=a` from query strings and form bodies into nested arrays.
// The simulator does the same so clients can be checked against the real bracket notation.

export type ParamValue = string | ParamValue[] | { [key: string]: ParamValue }
export type Params = { [key: string]: ParamValue }

const isRecord = (value: unknown): value is Params =>
  value !== null && typeof value === "object" && !Array.isArray(value)

export const parsePhpParams = (search: URLSearchParams): Params => {
  const root: Params = {}
  for (const [rawKey, value] of search) {
    const match = /^([^[\]]+)((?:\[[^\]]*\])+)$/.exec(rawKey)
    if (!match) {
      root[rawKey] = value
      continue
    }
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)]
    let container: Params = root
    path.forEach((segment, i) => {
      // `[]` appends, like PHP: the next key is the current number of entries.
      const key = segment === "" ? String(Object.keys(container).length) : segment
      if (i === path.length - 1) {
        container[key] = value
        return
      }
      const next = container[key]
      container = isRecord(next) ? next : (container[key] = {})
    })
  }
  return root
}

/** A JSON array or a bracket-notation map (`x[0]=…&x[1]=…`) as a list of its values. */
export const asList = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : []

export const asRecord = (value: unknown): Record<string, unknown> | undefined => (isRecord(value) ? value : undefined)

/** A boolean body field (JSON boolean, 1/0 or their strings); undefined when it is not one. */
export const readFlag = (value: unknown): boolean | undefined =>
  [true, 1, "1", "true"].includes(value as never) ? true : [false, 0, "0", "false"].includes(value as never) ? false : undefined

/** A boolean request flag: absent, "", "0" and "false" are false (PHP would take "false" as true). */
export const isTruthy = (value: unknown): boolean =>
  value === true || (typeof value === "number" && value !== 0) ||
  (typeof value === "string" && value !== "" && value !== "0" && value.toLowerCase() !== "false")
