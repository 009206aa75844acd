import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { parseEnvLines } from "../../src/config/config-file.js"
import { diagnose } from "../../src/config/diagnostics.js"
import { ENVIRONMENT_ONLY, SETTINGS } from "../../src/config/settings.js"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const FILE = "/etc/shopsync/shopsync.env"

const diagnoseText = (text: string, mode = 0o100600) => diagnose({ path: FILE, mode, ...parseEnvLines(text) })

describe("the config file's diagnostics", () => {
  it("warns about a key that is not a setting, naming file:line and the setting probably meant", () => {
    const { errors, warnings } = diagnoseText("# store\nSTORE_ID=main\nSTORE_CONSUMER_SECRT=cs_x\nWHATEVER_ELSE=1\nSHOPSYNC_CONFIG=/x\n")
    expect(errors).toEqual([])
    expect(warnings).toEqual([
      `${FILE}:3: STORE_CONSUMER_SECRT is not a shopsync setting and is ignored; did you mean STORE_CONSUMER_SECRET?`,
      `${FILE}:4: WHATEVER_ELSE is not a shopsync setting and is ignored; config/shopsync.env.example lists the settings`,
      `${FILE}:5: SHOPSYNC_CONFIG is read from the environment only and has no effect in a config file; set it in the environment`
    ])
  })

  it("reports each line that is not KEY=VALUE by its number, without echoing it (it may hold a secret)", () => {
    const { errors } = diagnoseText("STORE_ID=main\nSTORE_CONSUMER_SECRET cs_secret_value\n\n=orphan\n2X=1\n")
    expect(errors).toEqual([2, 4, 5].map((line) =>
      `${FILE}:${line}: not a KEY=VALUE line; each line must be an assignment such as STORE_ID=main, a # comment, or empty`
    ))
    expect(errors.join(" ")).not.toContain("cs_secret_value")
  })

  it("warns when a file holding a secret is readable by its group or others, with the chmod that fixes it", () => {
    const text = "STORE_ID=main\nSTORE_CONSUMER_SECRET=cs_x\n"
    expect(diagnoseText(text, 0o100644).warnings).toEqual([
      `${FILE}:2: STORE_CONSUMER_SECRET is a secret, and the file is readable by every user (mode 0644); run chmod 600 ${FILE}`
    ])
    expect(diagnoseText(text, 0o100640).warnings[0]).toContain("readable by its group (mode 0640)")
    expect(diagnoseText(text, 0o100600).warnings).toEqual([])
    expect(diagnoseText(text, 0o100400).warnings).toEqual([])
    // Without a secret, a readable file is fine; a DATABASE_URL is a secret only with a password in it.
    expect(diagnoseText("STORE_ID=main\nDATABASE_URL=postgres://u@db/w\n", 0o100644).warnings).toEqual([])
    expect(diagnoseText("DATABASE_URL=postgres://u:pw@db/w\n", 0o100644).warnings[0]).toContain(":1: DATABASE_URL is a secret")
    expect(diagnoseText("MARKETING_CLIENT_SECRET=m\n", 0o100604).warnings[0]).toContain("readable by every user (mode 0604)")
  })

  it("knows every setting the example file documents and every variable the sources read", () => {
    const example = fs.readFileSync(path.join(root, "config/shopsync.env.example"), "utf8")
    const documented = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!)
    expect(documented.length).toBeGreaterThan(20)
    expect(documented.filter((key) => !SETTINGS.has(key))).toEqual([])
    // A variable read anywhere else (Config.string("X"), process.env.X) is one the config file check would call unknown.
    const sources = (dir: string): Array<string> =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? (e.name === "simulator" ? [] : sources(path.join(dir, e.name))) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []
      )
    const read = sources(path.join(root, "src")).flatMap((file) => {
      const text = fs.readFileSync(file, "utf8")
      return [...text.matchAll(/Config\.\w+\(\s*"([A-Z][A-Z0-9_]+)"|process\.env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1] ?? m[2]!)
    })
    expect(read.filter((key) => !SETTINGS.has(key) && !(ENVIRONMENT_ONLY as ReadonlyArray<string>).includes(key))).toEqual([])
    expect(ENVIRONMENT_ONLY.filter((key) => SETTINGS.has(key))).toEqual([])
  })
})
