import { maskEmails } from "../warehouse/personal-data.js"

/**
 * HTML built from templates whose interpolated values are escaped unless they are already `Html`: a value from the
 * warehouse or the store (a reason, an error, an email) can only ever print as text, and e-mail addresses in it
 * print masked (the pages are for operators, who need the domain, not the customer).
 */
export class Html {
  constructor(readonly text: string) {}
  toString() {
    return this.text
  }
}

export type Printable = Html | string | number | null | undefined | ReadonlyArray<Html>

const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)

const print = (value: Printable): string => {
  if (value === null || value === undefined) return ""
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map((v: Html) => v.text).join("")
  return escapeHtml(maskEmails(String(value)))
}

/** A template whose values are escaped (`Html` values and arrays of them are inserted as they are). */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Printable>): Html =>
  new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? print(values[i]!) : ""), ""))

/** An amount kept as PostgreSQL's numeric text, grouped by thousands for reading: "-12345.5" → "-12,345.50". */
export const formatAmount = (amount: string): string => {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(amount.trim())
  if (match === null) return amount
  const [, sign, whole, fraction = ""] = match
  return `${sign}${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${fraction.padEnd(2, "0")}`
}
