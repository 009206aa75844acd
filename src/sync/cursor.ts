import { Schema } from "effect"

/**
 * A stream's position: every row dated at or before second `at` is loaded (id null). The store gives rows
 * of one second in no particular order, so a position inside a second means nothing: cursors are whole
 * seconds. One with an id was written by an older shopsync, which assumed id order within a second; it is
 * read as covering only the seconds before `at`, so its second is read again, whole.
 */
export const Cursor = Schema.Struct({ at: Schema.Number, id: Schema.NullOr(Schema.Number) })
export type Cursor = typeof Cursor.Type

/** The last second whose rows are all loaded (null: none). */
export const wholeSecond = (cursor: Cursor | null): number | null =>
  cursor === null ? null : cursor.id === null ? cursor.at : cursor.at - 1

/** The cursor that covers every second up to `second`. */
export const through = (second: number): Cursor => ({ at: second, id: null })

/** Null sorts first (nothing loaded), then by the last whole second. */
export const compareCursors = (a: Cursor | null, b: Cursor | null) =>
  (wholeSecond(a) ?? Number.NEGATIVE_INFINITY) - (wholeSecond(b) ?? Number.NEGATIVE_INFINITY) || 0
