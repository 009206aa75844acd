import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { parseEnvFile } from "../../src/config/config-file.js"
import { storeSettingsConfig } from "../../src/config/settings.js"
import { selectedStreams, streamsOption } from "../../src/cli/streams-option.js"
import { CliConfig, Command, CommandDescriptor, CommandDirective } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { SALES_STREAMS } from "../../src/sync/catalogue.js"

const load = (entries: Record<string, string>) =>
  Effect.runPromise(
    Effect.either(storeSettingsConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries)))))
  )

describe("configuration", () => {
  it("reads a KEY=VALUE file with comments, quotes and export", () => {
    const map = parseEnvFile("# c\nexport STORE_ID='main'\nSTORE_API_URL=\"https://s.test/wp-json/wc/v3\"\n\nBROKEN\n")
    expect(Object.fromEntries(map)).toEqual({ STORE_ID: "main", STORE_API_URL: "https://s.test/wp-json/wc/v3" })
  })

  it("keeps secrets redacted and applies defaults", async () => {
    const result = await load({ STORE_API_URL: "https://s.test/wp-json/wc/v3/", STORE_CONSUMER_KEY: "ck", STORE_CONSUMER_SECRET: "cs_secret" })
    expect(result._tag).toBe("Right")
    if (result._tag !== "Right") return
    expect(result.right.apiUrl).toBe("https://s.test/wp-json/wc/v3")
    expect(result.right.storeId).toBe("default")
    expect(String(result.right.consumerSecret)).not.toContain("cs_secret")
    expect(Redacted.value(result.right.consumerSecret)).toBe("cs_secret")
  })

  it("names the variable when the API root does not end in /v3 or a secret is missing", async () => {
    const wrongRoot = await load({ STORE_API_URL: "https://s.test/wp-json/wc/v2", STORE_CONSUMER_KEY: "k", STORE_CONSUMER_SECRET: "s" })
    expect(wrongRoot._tag === "Left" && String(wrongRoot.left)).toContain("/v3")
    const missing = await load({ STORE_API_URL: "https://s.test/wp-json/wc/v3", STORE_CONSUMER_KEY: "k" })
    expect(missing._tag === "Left" && String(missing.left)).toContain("STORE_CONSUMER_SECRET")
  })

  it("accepts known stream names in the catalogue's order and rejects others by name, with the one meant; without --streams, the command's defaults", async () => {
    const parse = (args: ReadonlyArray<string>) =>
      Effect.runPromise(Effect.either(CommandDescriptor.parse(Command.make("t", { streams: streamsOption("x") }).descriptor, ["t", ...args], CliConfig.defaultConfig)).pipe(
        Effect.provide(NodeContext.layer)
      ))
    const good = await parse(["--streams", "refunds, order_notes, orders"])
    expect(good._tag === "Right" && CommandDirective.isUserDefined(good.right) && good.right.value).toEqual({ streams: Option.some(["orders", "refunds", "order_notes"]) })
    expect(selectedStreams(Option.none(), SALES_STREAMS)).toEqual(SALES_STREAMS)
    const bad = await parse(["--streams", "orders,coupons,ordrs"])
    expect(bad._tag === "Left" && JSON.stringify(bad.left)).toContain('unknown stream \\"coupons\\", \\"ordrs\\" (did you mean orders?) in --streams')
  })
})
