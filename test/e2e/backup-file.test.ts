// `shopsync warehouse backup FILE` writes customer data: the file it leaves is its owner's only (0600) whatever was
// at FILE.partial before, and a symbolic link at FILE or FILE.partial is refused with its target untouched.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"

describe("warehouse backup's file", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let dir: string
  const backup = (file: string) => runCli(["warehouse", "backup", file], { DATABASE_URL: db.url })
  /** A file of someone else's that a link points at: 0644, known content. */
  const victim = (name: string) => {
    const target = path.join(dir, name)
    fs.writeFileSync(target, "not yours\n")
    fs.chmodSync(target, 0o644)
    return target
  }
  const untouched = (target: string) => {
    expect(fs.readFileSync(target, "utf8")).toBe("not yours\n")
    expect(fs.statSync(target).mode & 0o777).toBe(0o644)
  }

  beforeAll(async () => {
    db = await freshDatabase()
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-backup-"))
  })
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true })
    await db?.drop()
  })

  it("a stale FILE.partial of mode 0644 (and an old FILE) are replaced: the backup ends 0600", async () => {
    const file = path.join(dir, "stale.backup")
    for (const f of [file, `${file}.partial`]) {
      fs.writeFileSync(f, "old\n")
      fs.chmodSync(f, 0o644)
    }
    const run = await backup(file)
    expect(run.code, run.stderr).toBe(0)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.readFileSync(file, "utf8")).toMatch(/^\{"format":"shopsync-backup"/)
    expect(fs.existsSync(`${file}.partial`)).toBe(false)
  })

  it("a symbolic link at FILE.partial is refused; its target is untouched", async () => {
    const file = path.join(dir, "linked-partial.backup")
    const target = victim("partial-target")
    fs.symlinkSync(target, `${file}.partial`)
    const run = await backup(file)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(`${file}.partial exists and is a symbolic link`)
    untouched(target)
    expect(fs.lstatSync(`${file}.partial`).isSymbolicLink()).toBe(true)
    expect(fs.existsSync(file)).toBe(false)
  })

  it("a symbolic link at FILE is refused; its target is untouched and the link stays", async () => {
    const file = path.join(dir, "linked.backup")
    const target = victim("file-target")
    fs.symlinkSync(target, file)
    const run = await backup(file)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(`${file} exists and is a symbolic link`)
    untouched(target)
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true)
    expect(fs.existsSync(`${file}.partial`)).toBe(false)
  })
})
