/** A plain text table: right-aligned numbers, left-aligned text. */
export const formatTable = (rows: ReadonlyArray<Record<string, unknown>>, columns: ReadonlyArray<string>): string => {
  const cell = (v: unknown) => (v === null || v === undefined ? "" : String(v))
  const numeric = columns.map((c) => rows.length > 0 && rows.every((r) => /^-?\d+(\.\d+)?$/.test(cell(r[c])) || cell(r[c]) === ""))
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)))
  const line = (values: ReadonlyArray<string>) =>
    values.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join("  ").trimEnd()
  return [line(columns), line(widths.map((w) => "-".repeat(w))), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join("\n")
}
