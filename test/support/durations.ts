/**
 * Writes test/durations.json (each test file's duration in ms, which test/support/sequencer.ts orders a clean
 * checkout's run by) from vitest's cache of the last runs in a checkout (default this one):
 *   npx vitest run && npm run test:durations [-- CHECKOUT]
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const from = path.resolve(process.argv[2] ?? root)
const cacheDir = path.join(from, "node_modules/.vite/vitest")
const caches = fs.readdirSync(cacheDir).map((d) => path.join(cacheDir, d, "results.json")).filter((f) => fs.existsSync(f))
if (caches.length === 0) throw new Error(`no vitest results under ${cacheDir}: run the suite there first`)
const newest = caches.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!
const { results } = JSON.parse(fs.readFileSync(newest, "utf8")) as { results: Array<[string, { duration: number }]> }
const durations: Record<string, number> = {}
// Keys are "<project>:<file>"; the project's is the one the run used (an entry without a project is older).
for (const [key, { duration }] of results) {
  const [project, file] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)]
  if (project !== "" && fs.existsSync(path.join(root, file))) durations[file] = Math.round(duration)
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)))
fs.writeFileSync(path.join(root, "test/durations.json"), `${JSON.stringify(sorted, null, 2)}\n`)
console.log(`test/durations.json: ${Object.keys(sorted).length} files from ${newest}`)
