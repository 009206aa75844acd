import { Schema } from "effect"

/** A stream's position: every row ordered at or before (at, id) is loaded; id null = all of second `at`. */
export const Cursor = Schema.Struct({ at: Schema.Number, id: Schema.NullOr(Schema.Number) })
export type Cursor = typeof Cursor.Type

/** Null sorts first (nothing loaded), and a whole second after every id in it. */
export const compareCursors = (a: Cursor | null, b: Cursor | null) =>
  a === null || b === null
    ? (a === null ? 0 : 1) - (b === null ? 0 : 1)
    : a.at - b.at || (a.id ?? Number.POSITIVE_INFINITY) - (b.id ?? Number.POSITIVE_INFINITY)

/** Whether the row at (second, id) lies after `cursor`, i.e. is not loaded yet. */
export const isAfter = (second: number, id: number, cursor: Cursor | null) =>
  cursor === null || second > cursor.at || (second === cursor.at && cursor.id !== null && id > cursor.id)
