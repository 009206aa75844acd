// Plans of the warehouse's statements, as EXPLAIN (FORMAT JSON) gives them, for the tests that check how a statement
// reaches the warehouse's rows.
import type pg from "pg"

export interface PlanNode {
  readonly "Node Type": string
  readonly Plans?: ReadonlyArray<PlanNode>
  readonly [key: string]: unknown
}

/** The root of `statement`'s plan, EXPLAINed with `options` (ANALYZE runs it; VERBOSE names each relation's schema). */
export const planOf = async (client: pg.Client, options: string, statement: string, params: ReadonlyArray<unknown> = []): Promise<PlanNode> => {
  const { rows } = await client.query<{ "QUERY PLAN": ReadonlyArray<{ Plan: PlanNode }> }>(`EXPLAIN (${options}, FORMAT JSON) ${statement}`, [...params])
  return rows[0]!["QUERY PLAN"][0]!.Plan
}

/** The scans of warehouse tables (`store.*`) under `node`, itself included; `table`'s alone when named. The plan must be VERBOSE. */
export const storeScans = (node: PlanNode, table?: string): Array<PlanNode> => [
  ...(node["Node Type"].endsWith("Scan") && node["Schema"] === "store" && (table === undefined || node["Relation Name"] === table) ? [node] : []),
  ...(node.Plans ?? []).flatMap((n) => storeScans(n, table))
]
