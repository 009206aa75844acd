import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { TestProject } from "vitest/node"
import { buildCli } from "../../bin/build.mjs"

/**
 * The bundled CLI the tests spawn (test/support/cli.ts), built once per run instead of transpiled by tsx in every
 * spawned process (tsx: 5–7 s a `--version` on a loaded machine; the bundle, bin/build.mjs, 0.4 s on a quiet one
 * against 1.0 s for tsc's module-per-file output).
 *
 * - dist/ when it is at least as new as every source (bin/shopsync.mjs's own rule; `npm ci` builds it in CI);
 * - otherwise `.test-dist/`, bundled by bin/build.mjs (about a second) when a source, bin/build.mjs or tsconfig.json
 *   is newer than it (`npm test` type-checks first). It sits beside dist/ at the top of the checkout, so the paths
 *   the modules resolve from their own location (`../../sql`, `.shopsync/`) are the same as from dist/.
 *
 * SHOPSYNC_TEST_CLI=src spawns the sources under tsx instead, and builds nothing.
 */
const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const testDist = path.join(root, ".test-dist")
const stampFile = path.join(testDist, ".sources-mtime")

const newest = (file: string): number => {
  const stat = fs.statSync(file, { throwIfNoEntry: false })
  if (!stat) return 0
  return stat.isDirectory()
    ? fs.readdirSync(file).reduce((max, name) => Math.max(max, newest(path.join(file, name))), 0)
    : stat.mtimeMs
}

const sourcesMtime = () =>
  Math.max(newest(path.join(root, "src")), newest(path.join(root, "tsconfig.json")), newest(path.join(root, "bin/build.mjs")))

const build = async (): Promise<string> => {
  const started = Date.now()
  const sources = sourcesMtime()
  const dist = path.join(root, "dist/bin/shopsync.js")
  if ((fs.statSync(dist, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= newest(path.join(root, "src"))) return dist
  const entry = path.join(testDist, "bin/shopsync.js")
  const stamp = fs.existsSync(stampFile) ? Number(fs.readFileSync(stampFile, "utf8")) : 0
  if (fs.existsSync(entry) && stamp >= sources) return entry
  // bin/build.mjs builds beside and swaps in: a concurrent run in this checkout never sees half a build.
  await buildCli(testDist)
  // The newest source seen before bundling: a file saved during the build makes the next run build again.
  fs.writeFileSync(stampFile, String(sources))
  console.log(`shopsync tests: bundled src/ into .test-dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return entry
}

// Every project that spawns the CLI runs this setup, in the same process: the first one builds, the others reuse it.
const shared = globalThis as { shopsyncCliBuild?: Promise<string> }

export default async function setup(project: TestProject) {
  if (process.env.SHOPSYNC_TEST_CLI === "src") return
  shared.shopsyncCliBuild ??= build()
  project.provide("cliEntry", await shared.shopsyncCliBuild)
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The bundled CLI's entry (dist/ or .test-dist/), when the project's global setup built it. */
    cliEntry?: string
  }
}
