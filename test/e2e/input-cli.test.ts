import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"

const STORE = ["STORE_API_URL=https://shop.test/wp-json/wc/v3", "STORE_CONSUMER_KEY=ck_input", "STORE_CONSUMER_SECRET=cs_input_secret"]

describe("the command line's input checks", () => {
  let dir: string
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-input-cli-"))
    db = await freshDatabase()
  })
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true })
    await db.drop()
  })

  const configFile = (name: string, lines: ReadonlyArray<string>) => {
    const file = path.join(dir, name)
    fs.writeFileSync(file, `${lines.join("\n")}\n`)
    return file
  }

  it("an unreadable SHOPSYNC_CONFIG stops every command, --help too, with one line naming the file and the OS reason", async () => {
    const missing = path.join(dir, "absent.env")
    for (const args of [["--help"], ["status"]]) {
      const run = await runCli(args, { SHOPSYNC_CONFIG: missing })
      expect(run.code).toBe(1)
      expect(run.stdout).toBe("")
      expect(run.stderr).toBe(
        `shopsync: cannot read the config file ${missing} (ENOENT: no such file or directory); ` +
          "set SHOPSYNC_CONFIG to a readable KEY=VALUE file, or unset it\n"
      )
    }
    const directory = await runCli(["--help"], { SHOPSYNC_CONFIG: dir })
    expect(directory.code).toBe(1)
    expect(directory.stderr).toContain(`cannot read the config file ${dir} (EISDIR`)
  })

  // root reads any file whatever its mode.
  it.skipIf(process.getuid?.() === 0)("a config file without read permission is reported as EACCES", async () => {
    const locked = configFile("locked.env", STORE)
    fs.chmodSync(locked, 0o000)
    const run = await runCli(["--help"], { SHOPSYNC_CONFIG: locked })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`cannot read the config file ${locked} (EACCES: permission denied)`)
  })

  it("a comment after a value in the config file is not part of it; a bad value is reported invalid only, by name", async () => {
    const file = configFile("commented.env", [
      ...STORE,
      "STORE_PER_PAGE=100   # rows per request, 1..100",
      "STORE_SETTLE_SECONDS=-1   # a mistake"
    ])
    const run = await runCli(["sync", "--no-push"], { SHOPSYNC_CONFIG: file, DATABASE_URL: db.url })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(
      "shopsync: configuration problem: invalid STORE_SETTLE_SECONDS (STORE_SETTLE_SECONDS must be a whole number from 0 to 3600, got -1). Set it "
    )
    expect(run.stderr).not.toContain("missing")
    expect(run.stderr).not.toContain("STORE_PER_PAGE")
    expect(run.stderr).not.toContain("cs_input_secret")
  })

  it("a STORE_PER_PAGE above the store API's limit or not a number is refused naming the variable, as invalid only", async () => {
    const file = configFile("per-page.env", [...STORE, "STORE_PER_PAGE=500"])
    const run = await runCli(["sync", "--no-push"], { SHOPSYNC_CONFIG: file, DATABASE_URL: db.url })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("invalid STORE_PER_PAGE (STORE_PER_PAGE must be a whole number from 1 to 100 (the store API's limit), got 500)")
    expect(run.stderr).not.toContain("missing")

    // Not a number, in the environment: the config file (where it is missing) is looked at too, yet it is only invalid.
    const words = await runCli(["sync", "--no-push"], { SHOPSYNC_CONFIG: configFile("store.env", STORE), DATABASE_URL: db.url, STORE_PER_PAGE: "one hundred" })
    expect(words.code).toBe(1)
    expect(words.stderr).toContain("configuration problem: invalid STORE_PER_PAGE (Expected an integer value but received \"one hundred\"). Set it ")
  })

  it("an invalid MARKETING_BASE_URL is reported by name with what is wrong with it", async () => {
    const run = await runCli(["marketing-hooks", "list"], {
      MARKETING_BASE_URL: "https://marketing.test/api",
      MARKETING_CLIENT_ID: "mk_input",
      MARKETING_CLIENT_SECRET: "mk_input_secret"
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("invalid MARKETING_BASE_URL (MARKETING_BASE_URL must be the marketing service's root URL, without /api")
    expect(run.stderr).not.toContain("mk_input_secret")
  })

  it("backfill refuses --since and --until days that do not exist, naming the option and the value", async () => {
    const since = await runCli(["backfill", "--since", "2025-02-30"])
    expect(since.code).not.toBe(0)
    expect(since.stdout + since.stderr).toContain('--since must be a calendar day YYYY-MM-DD that exists, got "2025-02-30"')

    const until = await runCli(["backfill", "--since", "2025-02-01", "--until", "2025-02-29"])
    expect(until.code).not.toBe(0)
    expect(until.stdout + until.stderr).toContain('--until must be a calendar day YYYY-MM-DD that exists, got "2025-02-29"')

    // A leap day is a real day: the run gets past the options (and stops at the missing store settings).
    const leap = await runCli(["backfill", "--since", "2024-02-29", "--until", "2024-03-01"], { DATABASE_URL: db.url })
    expect(leap.code).toBe(1)
    expect(leap.stdout + leap.stderr).not.toContain("calendar day")
    expect(leap.stderr).toContain("missing STORE_API_URL")
  })
})
