import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn real processes and git; two cores here.
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default", "./tests/support/summary-reporter.ts"],
    // One temporary folder for the run, removed when it ends (tests/support/run-tmpdir.ts).
    globalSetup: ["./tests/support/run-tmpdir.ts"],
  },
});
