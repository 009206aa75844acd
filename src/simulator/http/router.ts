// Method + path routing. `:name` segments match digits only, like WordPress's `(?P<id>[\d]+)`; `{name}` segments
// match any one segment (slugs, setting ids), URL-decoded. Matching is case-insensitive and tolerates one trailing
// slash, as the WordPress REST server does. Routes are tried in the order they were added.

export type Params = Readonly<Record<string, string>>

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

interface Entry<H> {
  method: string
  pattern: string
  regex: RegExp
  names: string[]
  handler: H
}

export class Router<H> {
  private readonly entries: Entry<H>[] = []

  add(method: string, pattern: string, handler: H): this {
    const names: string[] = []
    const source = pattern.replace(/:([a-z_]+)|\{([a-z_]+)\}/gi, (_, digits: string | undefined, any: string | undefined) => {
      names.push((digits ?? any)!)
      return digits !== undefined ? "(\\d+)" : "([^/]+)"
    })
    this.entries.push({ method, pattern, regex: new RegExp(`^${source}/?$`, "i"), names, handler })
    return this
  }

  /** Every route added, in order: its method and its pattern as given to `add`. */
  routes(): ReadonlyArray<{ method: string; pattern: string }> {
    return this.entries.map(({ method, pattern }) => ({ method, pattern }))
  }

  match(method: string, path: string): { handler: H; params: Params } | undefined {
    for (const entry of this.entries) {
      if (entry.method !== method) continue
      const m = entry.regex.exec(path)
      if (m === null) continue
      const params: Record<string, string> = {}
      entry.names.forEach((name, i) => (params[name] = decode(m[i + 1]!)))
      return { handler: entry.handler, params }
    }
    return undefined
  }
}
