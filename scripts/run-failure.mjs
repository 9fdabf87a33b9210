// The report of a test run that failed outside its tests (a global setup or teardown that threw, a crash):
// one failed check whose `why` is the run's first error and the lines after it, read from the run's output
// (its last lines when no error line is found). scripts/summarize-tests.mjs prints it with the failed tests.
import { readFileSync } from "node:fs";

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const lines = readFileSync(process.argv[2] ?? "/dev/stdin", "utf8")
  .replace(ANSI, "")
  .split("\n")
  .map((line) => line.trimEnd())
  .filter((line) => line.trim() !== "" && !/^[⎯\s]+$/.test(line));
const first = lines.findIndex((line) => /^\s*\w*error:/i.test(line));
const why = (first >= 0 ? lines.slice(first, first + 8) : lines.slice(-8)).join("\n");
console.log(JSON.stringify({ passed: 0, failed: 1, why }));
