// Method + path routing. `:name` segments match digits only, like WordPress's `(?P<id>[\d]+)`;
// matching is case-insensitive and tolerates one trailing slash, as the WordPress REST server does.

export type Params = Readonly<Record<string, string>>

interface Entry<H> {
  method: string
  regex: RegExp
  names: string[]
  handler: H
}

export class Router<H> {
  private readonly entries: Entry<H>[] = []

  add(method: string, pattern: string, handler: H): this {
    const names: string[] = []
    const source = pattern.replace(/:([a-z_]+)/gi, (_, name: string) => {
      names.push(name)
      return "(\\d+)"
    })
    this.entries.push({ method, regex: new RegExp(`^${source}/?$`, "i"), names, handler })
    return this
  }

  match(method: string, path: string): { handler: H; params: Params } | undefined {
    for (const entry of this.entries) {
      if (entry.method !== method) continue
      const m = entry.regex.exec(path)
      if (m === null) continue
      const params: Record<string, string> = {}
      entry.names.forEach((name, i) => (params[name] = m[i + 1]!))
      return { handler: entry.handler, params }
    }
    return undefined
  }
}
