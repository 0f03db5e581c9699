import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends a run with one plain line, `tests: N passed, N failed, N skipped`, which any CI reads
 * whatever the runner; vitest's own summary is decorated for people.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
      // A file that failed to load has no tests to count, and must still count as a failure.
      if (testModule.state() === "failed" && [...testModule.children.allTests()].length === 0)
        counts.failed++;
    }
    process.stdout.write(
      `\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}
