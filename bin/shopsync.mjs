#!/usr/bin/env node
// The `shopsync` command (`node bin/shopsync.mjs`, `npm run shopsync`): the bundled CLI in dist/ (bin/build.mjs, run by
// `npm install` and `npm run build`) when it is at least as new as every source file; otherwise the sources through
// tsx, so an edit never runs stale. The bundle starts in a fraction of the time and memory (tsx transpiles every
// module on a loader thread).
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)))

// `--version` before anything is loaded (no source scan, no tsx): package.json's version (src/http-client/user-agent.ts holds the same, tested).
if (process.argv.length === 3 && process.argv[2] === "--version") {
  process.stdout.write(`${JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version}\n`)
  process.exit(0)
}

// An image or package that ships dist/ without src/ (config/docker/Dockerfile) always runs dist/.
const newestSource = (dir) =>
  !fs.existsSync(dir)
    ? 0
    : fs.readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
      const full = path.join(dir, entry.name)
      return Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs)
    }, 0)

const built = fs.statSync(path.join(root, "dist/bin/shopsync.js"), { throwIfNoEntry: false })?.mtimeMs ?? 0
if (built >= newestSource(path.join(root, "src"))) {
  await import("../dist/bin/shopsync.js")
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("../src/bin/shopsync.ts")
}
