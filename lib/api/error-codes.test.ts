import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { buildOperatorOpenApiDocument } from "@/lib/operator/openapi";
import { DASHBOARD_ERROR_CODES, ERROR_CODES, OPERATOR_ERROR_CODES } from "./error-codes";

/** Every string literal the tree puts where an error code goes: throw helpers, `error:` / `code:` fields, field maps. */
const CODE_SITES = [
  /\b(?:badRequest|conflict|failed)\(\s*"([a-z][a-z0-9_]*)"/g,
  /new (?:Api|Operator)Error\(\s*\d+,\s*"([a-z][a-z0-9_]*)"/g,
  /\brejection\(\s*\w+,\s*"([a-z][a-z0-9_]*)"/g,
  /\b(?:error|code):\s*"([a-z][a-z0-9_]*)"/g,
  /fieldCodes:\s*\{([^}]*)\}/g,
  /\?\s*"([a-z]+_[a-z0-9_]+)"\s*:/g,
  /ErrorCode = "([a-z][a-z0-9_]*)"/g,
];

/** zod's own issue codes, which share the `code:` field shape. */
const ZOD_ISSUE_CODES = new Set(["custom", "too_small", "too_big", "invalid_type", "invalid_format"]);

function codesInTree(): Map<string, string> {
  const files = execFileSync("git", ["ls-files", "lib", "app", "proxy.ts"], { encoding: "utf8" })
    .split("\n")
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".test.ts") && !file.endsWith(".d.ts"));
  const found = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const pattern of CODE_SITES) {
      for (const match of text.matchAll(pattern)) {
        const captured = match[1] ?? "";
        // A field map lists codes as values: `plan: "invalid_plan", ...`.
        const codes = pattern.source.startsWith("fieldCodes")
          ? [...captured.matchAll(/"([a-z][a-z0-9_]*)"/g)].map((m) => m[1] ?? "")
          : [captured];
        for (const code of codes) if (!found.has(code) && !ZOD_ISSUE_CODES.has(code)) found.set(code, file);
      }
    }
  }
  return found;
}

describe("the error code registry", () => {
  it("holds every code the tree answers with", () => {
    const found = codesInTree();
    // The scan must see the throw sites at all: a broken pattern would pass vacuously.
    expect(found.get("invalid_amount")).toBeDefined();
    expect(found.get("payment_expired")).toBe("lib/rails/x402/payload.ts");
    expect(found.get("signed_out")).toBe("lib/dashboard/bff/bff.ts");
    expect(found.size).toBeGreaterThan(60);
    const known = new Set([
      ...Object.keys(ERROR_CODES),
      ...Object.keys(DASHBOARD_ERROR_CODES),
      ...Object.keys(OPERATOR_ERROR_CODES),
    ]);
    const missing = [...found]
      .filter(([code]) => !known.has(code))
      .map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

  it("names no code nothing answers with", () => {
    const found = codesInTree();
    const unused = [
      ...Object.keys(ERROR_CODES),
      ...Object.keys(DASHBOARD_ERROR_CODES),
      ...Object.keys(OPERATOR_ERROR_CODES),
    ].filter((code) => !found.has(code));
    expect(unused).toEqual([]);
  });

  it("is documented: every API code appears in the OpenAPI document", () => {
    const text = JSON.stringify(buildOpenApiDocument());
    const undocumented = Object.keys(ERROR_CODES).filter((code) => !text.includes(`\`${code}\``));
    expect(undocumented).toEqual([]);
  });

  it("documents the operator's codes in the operator's OpenAPI document, and keeps them out of the API's", () => {
    const text = JSON.stringify(buildOperatorOpenApiDocument());
    const undocumented = Object.keys(OPERATOR_ERROR_CODES).filter((code) => !text.includes(`\`${code}\``));
    expect(undocumented).toEqual([]);
    const overlap = Object.keys(OPERATOR_ERROR_CODES).filter((code) => Object.hasOwn(ERROR_CODES, code));
    expect(overlap).toEqual([]);
  });

  it("keeps dashboard-only codes out of the API's set", () => {
    const overlap = Object.keys(DASHBOARD_ERROR_CODES).filter((code) => Object.hasOwn(ERROR_CODES, code));
    expect(overlap).toEqual([]);
  });

  it("gives each code an HTTP error status and a sentence", () => {
    for (const entry of [
      ...Object.values(ERROR_CODES),
      ...Object.values(DASHBOARD_ERROR_CODES),
      ...Object.values(OPERATOR_ERROR_CODES),
    ]) {
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(600);
      expect(entry.message).toMatch(/^[A-Z].*\.$/);
    }
  });
});
