// Small helpers shared by the marketing simulator tests: form posts, tokens and JSON calls.
import {
  startMarketingSimulator,
  type MarketingSimulator,
  type MarketingSimulatorOptions,
} from "../../../src/simulator/marketing/index.ts"

export const FORM = { "content-type": "application/x-www-form-urlencoded" }

export const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`

export const postForm = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { ...FORM, ...headers }, body: new URLSearchParams(fields).toString() })

export const clientToken = async (sim: MarketingSimulator): Promise<string> => {
  const res = await postForm(`${sim.baseUrl}/oauth/v2/token`, {
    grant_type: "client_credentials",
    client_id: "mk_demo",
    client_secret: "mk_secret",
  })
  if (res.status !== 200) throw new Error(`token request failed: ${res.status}`)
  return ((await json(res)) as { access_token: string }).access_token
}

/** A response's JSON body, typed loosely for assertions. */
export const json = (res: Response): Promise<any> => res.json()

export interface JsonAnswer {
  status: number
  headers: Headers
  body: any
  text: string
}

/** A JSON API client bound to a bearer token; paths are relative to /api. */
export const apiClient = (sim: MarketingSimulator, token: string) =>
  async (method: string, path: string, body?: unknown): Promise<JsonAnswer> => {
    const res = await fetch(`${sim.baseUrl}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, text, body: text === "" ? undefined : JSON.parse(text) }
  }

/** A simulator plus a JSON client holding a client-credentials token. */
export const startWithClient = async (options: MarketingSimulatorOptions = {}) => {
  const sim = await startMarketingSimulator(options)
  return { sim, call: apiClient(sim, await clientToken(sim)) }
}

/** A clock the test moves by hand. */
export const manualClock = (start = Date.UTC(2024, 0, 1)) => {
  let now = start
  return {
    now: () => now,
    advanceSeconds(seconds: number) {
      now += seconds * 1000
    },
  }
}
