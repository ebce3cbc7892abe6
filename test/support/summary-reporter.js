/**
 * Ends the run with one plain line, `N passed, N failed` (`, N skipped` when any), that any
 * CI can read, after jest's own summary.
 */
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedSuites = results.numRuntimeErrorTestSuites;
    const failed = results.numFailedTests + failedSuites;
    process.stdout.write(
      `\nTests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
