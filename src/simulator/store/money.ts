// Money is integer cents everywhere inside the simulator; these convert at the API boundary.

/** Cents as a decimal string with `dp` places, rounding half away from zero when dp < 2 (like PHP number_format). */
export const formatMoney = (cents: number, dp = 2): string => {
  if (dp < 2) {
    const unit = 10 ** (2 - dp)
    const rounded = Math.sign(cents) * Math.round(Math.abs(cents) / unit)
    return dp === 0 ? String(rounded) : formatMoney(rounded * unit, 2).slice(0, -(2 - dp))
  }
  const sign = cents < 0 ? "-" : ""
  const abs = Math.abs(cents)
  const frac = String(abs % 100).padStart(2, "0")
  return `${sign}${Math.floor(abs / 100)}.${frac}${"0".repeat(dp - 2)}`
}

/** Cents as the shortest decimal ("1.5", "0", "-2.25"): how WooCommerce prints raw stored tax amounts. */
export const rawDecimal = (cents: number): string => {
  const s = formatMoney(cents, 2)
  return s.endsWith(".00") ? s.slice(0, -3) : s.endsWith("0") ? s.slice(0, -1) : s
}

/** A money value sent by a client (number or numeric string) in cents; undefined if not a number. */
export const parseCents = (value: unknown): number | undefined => {
  const text = typeof value === "number" ? (Number.isFinite(value) ? value.toFixed(6) : "") : typeof value === "string" ? value.trim() : ""
  const m = /^([+-])?(\d*)(?:\.(\d*))?$/.exec(text)
  if (m === null || (m[2] === "" && (m[3] ?? "") === "")) return undefined
  const digits = (m[3] ?? "").padEnd(3, "0")
  const cents = Number(m[2] || "0") * 100 + Number(digits.slice(0, 2)) + (Number(digits[2]) >= 5 ? 1 : 0)
  return m[1] === "-" ? -cents : cents
}
