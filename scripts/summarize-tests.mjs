// Sums the suites' reports into one closing line "N passed, N failed". A suite without a report failed.
// Above the totals, each failed test with the first lines of why, so a run's last screen says what broke.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const [dir, ...expectedSuites] = process.argv.slice(2);
const totals = { passed: 0, failed: 0, skipped: 0 };
const rows = [];

function count(file, report) {
  if (file.endsWith(".check")) return { passed: report.passed, failed: report.failed, skipped: 0 };
  if (file.endsWith(".vitest.json")) {
    const failedSuites = (report.testResults ?? []).filter(
      (r) => r.status === "failed" && !r.assertionResults?.length,
    );
    return {
      passed: report.numPassedTests,
      failed: report.numFailedTests + failedSuites.length,
      skipped: report.numPendingTests + report.numTodoTests,
    };
  }
  const stats = report.stats;
  return {
    passed: stats.expected + stats.flaky,
    failed: stats.unexpected + (report.errors?.length ?? 0),
    skipped: stats.skipped,
  };
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const firstLines = (text) =>
  String(text ?? "")
    .replace(ANSI, "")
    .split("\n")
    .slice(0, 8)
    .map((l) => `    ${l}`);

/** Whether the suite's own vitest report holds failed tests. */
function testsFailed(suite) {
  try {
    return JSON.parse(readFileSync(path.join(dir, `${suite}.vitest.json`), "utf8")).numFailedTests > 0;
  } catch {
    return false;
  }
}

/** [test name, why] for each failed test in a vitest or Playwright report. */
function failures(file, report) {
  // A run that failed outside its tests (scripts/run-failure.mjs) says why; where tests failed, they do.
  if (file.endsWith("-run.check") && report.why) {
    const suite = file.replace(/-run\.check$/, "");
    return testsFailed(suite) ? [] : [[`${suite}-run (outside any test)`, report.why]];
  }
  if (file.endsWith(".vitest.json")) {
    return (report.testResults ?? []).flatMap((r) =>
      r.assertionResults?.length
        ? r.assertionResults
            .filter((a) => a.status === "failed")
            .map((a) => [a.fullName, a.failureMessages?.[0]])
        : r.status === "failed"
          ? [[r.name, r.message]]
          : [],
    );
  }
  if (!file.endsWith(".playwright.json")) return [];
  const found = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const last = t.results?.at(-1);
        if (t.status !== "unexpected") continue;
        // A timed-out test has two errors: the timeout, and the step it stopped in (with that step's line).
        const errors = last?.errors?.length ? last.errors : [last?.error ?? {}];
        const why = errors.map((error) => {
          const at = error.location;
          const message = `${at ? `at ${path.basename(at.file)}:${at.line} ` : ""}${error.message ?? ""}`;
          return message.split("\n").slice(0, 4).join("\n");
        });
        found.push([`${spec.file} › ${spec.title}`, why.join("\n")]);
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
  for (const error of report.errors ?? []) found.push(["(outside any test)", error.message]);
  return found;
}

const files = readdirSync(dir);
for (const file of files) {
  const report = JSON.parse(readFileSync(path.join(dir, file), "utf8"));
  for (const [name, why] of failures(file, report)) {
    console.log(`\nfailed: ${name}`);
    for (const line of firstLines(why)) console.log(line);
  }
  rows.push([file.replace(/\.(check|vitest\.json|playwright\.json)$/, ""), count(file, report)]);
}
for (const suite of expectedSuites) {
  if (!files.some((f) => f.startsWith(`${suite}.`))) rows.push([suite, { passed: 0, failed: 1, skipped: 0 }]);
}
console.log("\nsuite            passed  failed  skipped");
for (const [name, c] of rows) {
  console.log(
    `${name.padEnd(16)} ${String(c.passed).padStart(6)}  ${String(c.failed).padStart(6)}  ${String(c.skipped).padStart(7)}`,
  );
  totals.passed += c.passed;
  totals.failed += c.failed;
  totals.skipped += c.skipped;
}
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || totals.passed === 0 ? 1 : 0);
