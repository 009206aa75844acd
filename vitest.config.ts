import { defineConfig } from "vitest/config"
import LongestFirst from "./test/support/sequencer.js"

// The tests that run `shopsync worker` processes (several at once, each a cluster runner): the slowest e2e files.
const CLUSTER = [
  "test/e2e/cluster-spike.test.ts",
  "test/e2e/runner-auth.test.ts",
  "test/e2e/stores-cluster.test.ts",
  "test/e2e/worker-http.test.ts",
  "test/e2e/worker-logs.test.ts"
]

// The compiled CLI (built once, test/support/build-cli.ts) and one embedded PostgreSQL for the run, shared by the
// projects that list these (each file in its own database on it, test/support/global-setup.ts).
const SERVICES = ["test/support/build-cli.ts", "test/support/global-setup.ts"]

/**
 * Four projects; `npx vitest run` (`npm test`, CI) runs them all, `--project <name>` one of them:
 * - unit: in-process tests and the simulators' own tests: no PostgreSQL, no CLI build, seconds;
 * - e2e: the CLI, serve and the warehouse against PostgreSQL and the simulators;
 * - cluster: the worker/cluster files, alone (groupOrder 1) since they start several runners each;
 * - real-woo: a real WooCommerce store (PHP, MariaDB) per file, last (groupOrder 2), so its PHP and MariaDB never
 *   share the two cores with the tests that time the client's pace.
 */
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores.
    maxWorkers: 2,
    // Longest files first, from test/durations.json where vitest has no cache of its own (a clean checkout: CI).
    sequence: { sequencer: LongestFirst },
    minWorkers: 1,
    // Only the unit project runs in threads; the others in forks (the default), each file in a fresh process.
    poolOptions: { threads: { isolate: false } },
    projects: [
      {
        extends: true,
        // Worker threads, not isolated (poolOptions.threads below): the files share one module graph per thread, which
        // halves the run, since importing effect once per file was most of it. None mocks a module or leaves a global
        // or an environment variable changed. (vitest takes isolation from the pool's root options, not a project's.)
        // input-config changes directory, which a thread cannot: it runs in a fork of its own (poolMatchGlobs, which
        // vitest 3 calls deprecated but still honours within a project).
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/simulator/**/*.test.ts"],
          pool: "threads",
          poolMatchGlobs: [["**/test/unit/input-config.test.ts", "forks"]]
        }
      },
      {
        extends: true,
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], exclude: CLUSTER, globalSetup: SERVICES }
      },
      { extends: true, test: { name: "cluster", include: CLUSTER, globalSetup: SERVICES, sequence: { groupOrder: 1 } } },
      {
        extends: true,
        // Each file starts a real WooCommerce store and syncs it: minutes, not seconds.
        test: {
          name: "real-woo",
          include: ["test/real-woo/**/*.test.ts"],
          globalSetup: SERVICES,
          testTimeout: 300_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 2 }
        }
      }
    ]
  }
})
