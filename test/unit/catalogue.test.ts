import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { CATALOGUE, SALES_STREAMS, STREAMS } from "../../src/sync/catalogue.js"

/** docs/internals.md's stream tables: `| name | …` rows, with the table in the second column for the other resources. */
const readmeRows = () =>
  fs.readFileSync("docs/internals.md", "utf8").split("\n")
    .map((line) => /^\| ([a-z_]+) \| (.*)$/.exec(line))
    .flatMap((m) => (m ? [{ name: m[1]!, rest: m[2]! }] : []))

describe("the stream catalogue", () => {
  it("names every stream once, and every stream it runs after is one of them, listed before it", () => {
    expect(new Set(STREAMS).size).toBe(STREAMS.length)
    for (const name of STREAMS) {
      for (const before of CATALOGUE[name].after) expect(STREAMS.indexOf(before)).toBeLessThan(STREAMS.indexOf(name))
    }
  })

  it("is what docs/internals.md documents: every stream has its row, the other resources with their table", () => {
    const rows = readmeRows()
    for (const name of STREAMS) {
      const row = rows.find((r) => r.name === name)
      expect({ name, documented: row !== undefined }).toEqual({ name, documented: true })
      if (!SALES_STREAMS.includes(name)) expect(row!.rest.startsWith(`\`${CATALOGUE[name].table}\``)).toBe(true)
    }
  })
})
