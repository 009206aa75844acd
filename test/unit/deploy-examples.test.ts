import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { SETTINGS } from "../../src/config/settings.js"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8")
/** A file's lines that are not comments. */
const code = (text: string) => text.split("\n").filter((line) => !/^\s*#/.test(line) && line.trim() !== "")

// Node.js release lines in long-term support, and when each ends (https://nodejs.org/en/about/previous-releases).
const SUPPORTED_NODE = { 22: "2027-04-30", 24: "2028-04-30" } as const

describe("the deploy examples", () => {
  it("the example config file names every setting shopsync reads", () => {
    const example = read("config/shopsync.env.example")
    expect([...SETTINGS.keys()].filter((name) => !new RegExp(`^#? ?${name}=`, "m").test(example))).toEqual([])
  })

  it("the image builds in one stage and ships in another, on a supported slim Node.js, with production dependencies only, as a non-root user", () => {
    const lines = code(read("config/docker/Dockerfile"))
    const froms = lines.filter((line) => /^FROM\s/i.test(line))
    expect(froms.length).toBe(2)
    for (const from of froms) {
      const version = /^FROM\s+node:(\d+)[\w.-]*-slim\b/i.exec(from)?.[1]
      expect(version, from).toBeDefined()
      expect(Object.keys(SUPPORTED_NODE)).toContain(version)
      // Past its end of life, the image needs a newer line.
      expect(Date.parse(SUPPORTED_NODE[Number(version) as keyof typeof SUPPORTED_NODE])).toBeGreaterThan(Date.now())
    }
    const final = lines.slice(lines.indexOf(froms[1]!))
    const installs = final.filter((line) => /npm (ci|install)\b/.test(line))
    expect(installs.length).toBe(1)
    expect(installs[0]).toMatch(/npm ci\b.*--omit=dev/)
    expect(final).toContain("COPY --from=build /app/dist ./dist")
    // No sources in the final image: bin/shopsync.mjs then runs dist/, never tsx.
    expect(final.some((line) => /^COPY\s+src\b/.test(line))).toBe(false)
    const user = final.filter((line) => /^USER\s/.test(line)).pop()
    expect(user).toBeDefined()
    expect(user).not.toMatch(/^USER\s+(root|0)\b/)
    expect(final).toContain('ENTRYPOINT ["node", "bin/shopsync.mjs"]')
  })

  it("cron, systemd and Kubernetes run node itself, never through npm (whose shell would not pass a SIGTERM on)", () => {
    for (const file of ["config/shopsync.cron", "config/systemd/shopsync-sync.service", "config/kubernetes/cronjob.yaml"]) {
      expect(code(read(file)).filter((line) => /\bnpm\b/.test(line)), file).toEqual([])
    }
    // The image builds with npm; what it runs does not.
    expect(code(read("config/docker/Dockerfile")).filter((line) => /^(ENTRYPOINT|CMD)\b.*\bnpm\b/.test(line))).toEqual([])
    expect(code(read("config/shopsync.cron")).some((line) => /\bexec node bin\/shopsync\.mjs sync\b/.test(line))).toBe(true)
    expect(code(read("config/systemd/shopsync-sync.service"))).toContain("ExecStart=/usr/bin/node /opt/shopsync/bin/shopsync.mjs sync")
  })
})
