import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli.js"
import { reachableTempDir } from "../support/data-root.js"
import { freePort } from "../support/ports.js"

const asRoot = typeof process.getuid === "function" && process.getuid() === 0

// As root the server runs as `postgres`: a data directory under a private one (a home directory) is out of its reach.
describe.skipIf(!asRoot)("a data directory the postgres user cannot reach, as root", () => {
  const root = reachableTempDir("shopsync-reach-")
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  it("is named with the fix, and no directory outside the checkout is opened to other users", async () => {
    const home = path.join(root, "private")
    fs.mkdirSync(home, { mode: 0o700 })
    const secret = path.join(home, "notes.txt")
    fs.writeFileSync(secret, "private\n", { mode: 0o644 })
    const run = await runCli(["warehouse", "start"], { SHOPSYNC_DATA_DIR: path.join(home, "inner", "data"), SHOPSYNC_PG_PORT: String(await freePort()) })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`cannot reach ${path.join(home, "inner", "data", "postgres")}: ${home} (mode 0700)`)
    expect(run.stderr).toContain(`setfacl -m u:postgres:x ${home}`)
    expect(fs.statSync(home).mode & 0o777).toBe(0o700)
    expect(fs.existsSync(path.join(home, "inner"))).toBe(false)

    // The fix it names works.
    fs.chmodSync(home, 0o711)
    const env = { SHOPSYNC_DATA_DIR: path.join(home, "inner", "data"), SHOPSYNC_PG_PORT: String(await freePort()) }
    const fixed = await runCli(["warehouse", "start"], env)
    expect(fixed.code, fixed.stderr).toBe(0)
    expect((await runCli(["warehouse", "stop"], env)).code).toBe(0)
  }, 120_000)
})
