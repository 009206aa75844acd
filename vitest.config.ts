import { configDefaults, defineConfig } from "vitest/config"

const REAL_WOO = "test/real-woo/**"

export default defineConfig({
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: test files share one embedded PostgreSQL per project, each file in its own database.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      { extends: true, test: { name: "default", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, REAL_WOO] } },
      {
        extends: true,
        // Each file starts a real WooCommerce store (PHP, MariaDB) and syncs it: minutes, not seconds. Run alone
        // with `npx vitest run --project real-woo`. After the default project (groupOrder), so its PHP and MariaDB
        // do not share the two cores with the tests that time the client's pace.
        test: {
          name: "real-woo",
          include: [`${REAL_WOO}/*.test.ts`],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 1 }
        }
      }
    ]
  }
})
