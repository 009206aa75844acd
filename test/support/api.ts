/** Reads a simulator's list endpoint over HTTP, every page: the documents a client sees, for independent expectations. */
export const fetchAll = async (apiUrl: string, path: string, params: Record<string, string> = {}): Promise<Array<Record<string, any>>> => {
  const auth = `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}`
  const out: Array<Record<string, any>> = []
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ ...params, per_page: "100", page: String(page) })
    const res = await fetch(`${apiUrl}${path}?${query}`, { headers: { authorization: auth } })
    if (!res.ok) throw new Error(`${path}: ${res.status}`)
    const items = (await res.json()) as Array<Record<string, any>>
    out.push(...items)
    if (items.length < 100) return out
  }
}

/** "12.30" → 1230: money compared in integer cents, never floats. */
export const cents = (value: string): number => {
  const [whole, frac = ""] = value.replace("-", "").split(".")
  const n = Number(whole) * 100 + Number((frac + "00").slice(0, 2))
  return value.startsWith("-") ? -n : n
}

export const money = (c: number): string => `${c < 0 ? "-" : ""}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, "0")}`

export const COUNTED = new Set(["processing", "completed", "on-hold", "refunded"])
