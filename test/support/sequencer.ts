import * as fs from "node:fs"
import * as path from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * Longest files first, so the two workers finish together instead of one idling while the other runs a long file
 * picked last. vitest orders by the durations it cached on this machine (node_modules/.vite); a clean checkout (CI)
 * has none and would run files in name order, so test/durations.json (`npm run test:durations` rewrites it from the
 * cache of the last run) stands in. A file in neither runs first, as vitest runs unknown files first. Only the order changes.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root
    const recorded = JSON.parse(fs.readFileSync(path.join(root, "test/durations.json"), "utf8")) as Record<string, number>
    const duration = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId)
      return this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`)?.duration ?? recorded[file] ?? Number.POSITIVE_INFINITY
    }
    const longest = new Map(files.map((spec) => [spec, duration(spec)]))
    return [...files].sort((a, b) => {
      const [x, y] = [longest.get(a)!, longest.get(b)!]
      return x === y ? 0 : x > y ? -1 : 1
    })
  }
}
