import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Config, ConfigError, ConfigProvider, Effect, Either } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { configProvider, parseEnvFile } from "../../src/config/config-file.js"
import { marketingSettingsConfig, storeSettingsConfig } from "../../src/config/settings.js"

const STORE = { STORE_API_URL: "https://s.test/wp-json/wc/v3", STORE_CONSUMER_KEY: "ck", STORE_CONSUMER_SECRET: "cs" }
const MARKETING = { MARKETING_CLIENT_ID: "id", MARKETING_CLIENT_SECRET: "secret" }

const load = <A>(config: Effect.Effect<A, ConfigError.ConfigError>, entries: Record<string, string>) =>
  Effect.runPromise(Effect.either(config).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))))

/** The single InvalidData a load failed with: which variable it names and why. */
const invalid = async <A>(config: Effect.Effect<A, ConfigError.ConfigError>, entries: Record<string, string>) => {
  const result = await load(config, entries)
  if (Either.isRight(result)) throw new Error(`expected ${JSON.stringify(entries)} to be rejected`)
  const error = result.left
  if (error._op !== "InvalidData") throw new Error(`expected one InvalidData, got ${String(error)}`)
  return { name: error.path.join("."), message: error.message }
}

describe("the config file parser", () => {
  it("ends an unquoted value at whitespace then #, as dotenv does", () => {
    const map = parseEnvFile("STORE_PER_PAGE=100   # rows per request, 1..100\nSTORE_ID=main\t# tab\nEMPTY= # nothing here\nCOLOR=#fff\nURL=https://x.test/a#frag\n")
    expect(Object.fromEntries(map)).toEqual({ STORE_PER_PAGE: "100", STORE_ID: "main", EMPTY: "", COLOR: "#fff", URL: "https://x.test/a#frag" })
  })

  it("keeps a # inside quotes as data, with or without a comment after the closing quote", () => {
    const map = parseEnvFile("A=\"pa ss#word\"\nB='x # y'   # the comment\nC=\"#\"\n")
    expect(Object.fromEntries(map)).toEqual({ A: "pa ss#word", B: "x # y", C: "#" })
  })
})

describe("store and marketing settings", () => {
  it.each([
    ["STORE_PER_PAGE", "0", "from 1 to 100"],
    ["STORE_PER_PAGE", "101", "from 1 to 100"],
    ["STORE_MAX_ATTEMPTS", "0", "from 1 to 20"],
    ["STORE_MAX_ATTEMPTS", "21", "from 1 to 20"],
    ["STORE_SETTLE_SECONDS", "-1", "from 0 to 3600"],
    ["STORE_SETTLE_SECONDS", "99999999", "from 0 to 3600"],
    ["STORE_REQUEST_TIMEOUT_MS", "0", "from 1000 to 600000"],
    ["STORE_REQUEST_TIMEOUT_MS", "-1", "from 1000 to 600000"],
    ["STORE_CONCURRENCY", "17", "from 1 to 16"]
  ])("rejects %s=%s naming the variable, its range and the value", async (name, value, range) => {
    const problem = await invalid(storeSettingsConfig, { ...STORE, [name]: value })
    expect(problem.name).toBe(name)
    expect(problem.message).toContain(`${name} must be a whole number ${range}`)
    expect(problem.message).toMatch(new RegExp(`, got ${value}$`))
  })

  it("accepts the ends of each range", async () => {
    const result = await load(storeSettingsConfig, { ...STORE, STORE_PER_PAGE: "100", STORE_MAX_ATTEMPTS: "1", STORE_SETTLE_SECONDS: "0" })
    expect(Either.isRight(result) && [result.right.perPage, result.right.maxAttempts, result.right.settleSeconds]).toEqual([100, 1, 0])
    const low = await load(storeSettingsConfig, { ...STORE, STORE_PER_PAGE: "1" })
    expect(Either.isRight(low) && low.right.perPage).toBe(1)
  })

  it("names STORE_API_URL and STORE_ID when their values are rejected", async () => {
    expect((await invalid(storeSettingsConfig, { ...STORE, STORE_API_URL: "https://s.test/wp-json/wc/v2" })).name).toBe("STORE_API_URL")
    expect((await invalid(storeSettingsConfig, { ...STORE, STORE_ID: "a b" })).name).toBe("STORE_ID")
  })

  it("says which part of MARKETING_BASE_URL is wrong, naming it", async () => {
    const notUrl = await invalid(marketingSettingsConfig, { ...MARKETING, MARKETING_BASE_URL: "marketing.example.com" })
    expect(notUrl.name).toBe("MARKETING_BASE_URL")
    expect(notUrl.message).toContain("http(s) URL")
    const withApi = await invalid(marketingSettingsConfig, { ...MARKETING, MARKETING_BASE_URL: "https://marketing.example.com/api/" })
    expect(withApi.name).toBe("MARKETING_BASE_URL")
    expect(withApi.message).toContain("without /api or /oauth/v2")
    const batch = await invalid(marketingSettingsConfig, { ...MARKETING, MARKETING_BASE_URL: "https://m.test", MARKETING_BATCH_SIZE: "500" })
    expect(batch).toEqual({ name: "MARKETING_BATCH_SIZE", message: "MARKETING_BATCH_SIZE must be a whole number from 1 to 200, got 500" })
  })
})

describe("MARKETING_ALLOW_HTTP", () => {
  it("refuses a plain-http MARKETING_BASE_URL, naming the variable, its scheme and the fix; 1 accepts it, loopback included", async () => {
    for (const url of ["http://marketing.example.com", "http://127.0.0.1:8080"]) {
      const refused = await invalid(marketingSettingsConfig, { ...MARKETING, MARKETING_BASE_URL: url })
      expect(refused.name).toBe("MARKETING_BASE_URL")
      expect(refused.message).toContain("MARKETING_BASE_URL uses http:")
      expect(refused.message).toContain("use the service's https:// address, or set MARKETING_ALLOW_HTTP=1")
      const allowed = await load(marketingSettingsConfig, { ...MARKETING, MARKETING_BASE_URL: url, MARKETING_ALLOW_HTTP: "1" })
      expect(Either.isRight(allowed) && allowed.right.baseUrl).toBe(url)
    }
    expect(Either.isRight(await load(marketingSettingsConfig, { ...MARKETING, MARKETING_BASE_URL: "https://m.test" }))).toBe(true)
    const wrong = await invalid(marketingSettingsConfig, { ...MARKETING, MARKETING_BASE_URL: "https://m.test", MARKETING_ALLOW_HTTP: "yes" })
    expect(wrong.name).toBe("MARKETING_ALLOW_HTTP")
  })
})

// The default ./shopsync.env is relative to the working directory: each test runs in an empty one.
describe("the default config file", () => {
  const start = process.cwd()
  const saved = process.env.SHOPSYNC_CONFIG
  let dir: string
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-input-"))
    process.chdir(dir)
    delete process.env.SHOPSYNC_CONFIG
  })
  afterEach(() => {
    process.chdir(start)
    if (saved === undefined) delete process.env.SHOPSYNC_CONFIG
    else process.env.SHOPSYNC_CONFIG = saved
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("is optional: absent, the environment alone is used", async () => {
    const result = await Effect.runPromise(Effect.either(configProvider))
    expect(Either.isRight(result)).toBe(true)
  })

  it("is read when present", async () => {
    fs.writeFileSync("shopsync.env", "SHOPSYNC_INPUT_TEST=from-file   # comment\n")
    const provider = await Effect.runPromise(configProvider)
    const value = await Effect.runPromise(provider.load(Config.string("SHOPSYNC_INPUT_TEST")))
    expect(value).toBe("from-file")
  })

  it("fails naming its path, the OS reason and the fix when present but unreadable", async () => {
    fs.mkdirSync("shopsync.env")
    const result = await Effect.runPromise(Effect.either(configProvider))
    expect(Either.isLeft(result) && result.left.message).toBe(
      `cannot read the config file ${path.join(fs.realpathSync(dir), "shopsync.env")} (EISDIR: illegal operation on a directory); ` +
        "make ./shopsync.env readable by this user or remove it, or set SHOPSYNC_CONFIG to another KEY=VALUE file"
    )
  })
})
