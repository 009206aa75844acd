import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: test files share one embedded PostgreSQL, each in its own database.
    maxWorkers: 2,
    minWorkers: 1
  }
})
