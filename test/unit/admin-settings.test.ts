import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { adminSettingsConfig } from "../../src/config/settings.js"
import { loadAdminToken } from "../../src/server/admin-listener.js"

const TOKEN = "0123456789abcdef0123456789abcdef"

const load = (entries: Record<string, string>) =>
  Effect.runPromise(Effect.either(adminSettingsConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))))

describe("the admin listener's settings", () => {
  it("default to 127.0.0.1:8788 without a token", async () => {
    const result = await load({})
    expect(Either.map(result, (a) => ({ host: a.host, port: a.port, token: Option.isSome(a.token), file: Option.isSome(a.tokenFile) })))
      .toEqual(Either.right({ host: "127.0.0.1", port: 8788, token: false, file: false }))
  })

  it("refuse a host off loopback without a token, naming the setting and the fix", async () => {
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "worker-1"]) {
      const result = await load({ SHOPSYNC_ADMIN_HOST: host })
      expect(Either.isLeft(result), host).toBe(true)
      expect(String(Either.getLeft(result).pipe(Option.getOrUndefined))).toMatch(
        new RegExp(`SHOPSYNC_ADMIN_TOKEN.*SHOPSYNC_ADMIN_HOST=${host.replace(/\./g, "\\.")} is not a loopback address.*openssl rand -hex 32`))
    }
  })

  it("take a host off loopback with a token or a token file, and loopback without one", async () => {
    expect(Either.isRight(await load({ SHOPSYNC_ADMIN_HOST: "0.0.0.0", SHOPSYNC_ADMIN_TOKEN: TOKEN }))).toBe(true)
    expect(Either.isRight(await load({ SHOPSYNC_ADMIN_HOST: "0.0.0.0", SHOPSYNC_ADMIN_TOKEN_FILE: "/run/secrets/admin" }))).toBe(true)
    for (const host of ["127.0.0.1", "127.3.2.1", "::1", "localhost"]) expect(Either.isRight(await load({ SHOPSYNC_ADMIN_HOST: host })), host).toBe(true)
  })

  it("refuse a token shorter than 32 characters", async () => {
    const result = await load({ SHOPSYNC_ADMIN_TOKEN: "short" })
    expect(String(Either.getLeft(result).pipe(Option.getOrUndefined))).toContain("SHOPSYNC_ADMIN_TOKEN must be at least 32 characters")
  })

  it("read the token from its file, trimmed, and refuse an unreadable or short one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "admin-token-"))
    const file = path.join(dir, "token")
    fs.writeFileSync(file, `${TOKEN}\n`)
    const settings = { host: "0.0.0.0", port: 8788, token: Option.none(), tokenFile: Option.some(file) }
    expect(Option.map(await Effect.runPromise(loadAdminToken(settings)), Redacted.value)).toEqual(Option.some(TOKEN))
    fs.writeFileSync(file, "short\n")
    expect(String(await Effect.runPromise(Effect.flip(loadAdminToken(settings))))).toContain("at least 32 characters")
    const missing = await Effect.runPromise(Effect.flip(loadAdminToken({ ...settings, tokenFile: Option.some(path.join(dir, "none")) })))
    expect(missing).toMatchObject({ _tag: "AdminTokenFileInvalid", problem: "cannot be read (ENOENT)" })
    fs.rmSync(dir, { recursive: true })
  })
})
