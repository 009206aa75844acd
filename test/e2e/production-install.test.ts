import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const run = promisify(execFile)
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }

/**
 * The image's two stages (config/docker/Dockerfile) without Docker: the lock file as `npm ci --omit=dev` reads it (a
 * lock out of step with package.json fails here, as it failed both stages), dist/ bundled from the sources, and the
 * CLI started from them alone, with no src/ and no dev dependency beside it.
 */
describe("the production install", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-production-"))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("npm ci --omit=dev from the lock file, plus the bundled dist/, starts and answers --version and --help", async () => {
    for (const file of ["package.json", "package-lock.json"]) fs.copyFileSync(path.join(root, file), path.join(dir, file))
    for (const folder of ["bin", "sql"]) fs.cpSync(path.join(root, folder), path.join(dir, folder), { recursive: true })
    await run(process.execPath, [path.join(root, "bin/build.mjs"), path.join(dir, "dist")])
    await run("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund"], { cwd: dir, env: { ...process.env, NODE_ENV: "production" } })
    expect(fs.existsSync(path.join(dir, "node_modules/typescript"))).toBe(false)
    expect(fs.existsSync(path.join(dir, "node_modules/vitest"))).toBe(false)

    const cli = (args: ReadonlyArray<string>) => run(process.execPath, [path.join(dir, "bin/shopsync.mjs"), ...args], { cwd: dir, env: { PATH: process.env.PATH, SHOPSYNC_CONFIG: "/dev/null" } })
    expect((await cli(["--version"])).stdout.trim()).toBe(pkg.version)
    expect((await cli(["sync", "--help"])).stdout).toContain("sync")
  }, 300_000)
})
