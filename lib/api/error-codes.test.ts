import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { BODY_ERRORS } from "@/lib/api/openapi/shared";
import { buildOperatorOpenApiDocument } from "@/lib/operator/openapi";
import { DASHBOARD_ERROR_CODES, ERROR_CODES, OPERATOR_ERROR_CODES } from "./error-codes";
import { fieldCodesOf, type RequestBody } from "./request-body";

/** Every string literal the tree puts where an error code goes: throw helpers, `error:` / `code:` fields. */
const CODE_SITES = [
  /\b(?:badRequest|conflict|failed)\(\s*"([a-z][a-z0-9_]*)"/g,
  /new (?:Api|Operator)Error\(\s*\d+,\s*"([a-z][a-z0-9_]*)"/g,
  /\brejection\(\s*\w+,\s*"([a-z][a-z0-9_]*)"/g,
  /\b(?:error|code):\s*"([a-z][a-z0-9_]*)"/g,
  /\?\s*"([a-z]+_[a-z0-9_]+)"\s*:/g,
  /ErrorCode = "([a-z][a-z0-9_]*)"/g,
];

/** zod's own issue codes, which share the `code:` field shape. */
const ZOD_ISSUE_CODES = new Set(["custom", "too_small", "too_big", "invalid_type", "invalid_format"]);

const trackedFiles = (...paths: string[]) =>
  execFileSync("git", ["ls-files", ...paths], { encoding: "utf8" })
    .split("\n")
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".test.ts") && !file.endsWith(".d.ts"));

const isRequestBody = (value: unknown): value is RequestBody<unknown> =>
  typeof value === "object" && value !== null && "schema" in value && "fields" in value;

/** A body a route parses: the method and API path it serves, and the declaration it parses with. */
type ParsedBody = { route: string; method: string; path: string; name: string; body: RequestBody<unknown> };

/**
 * The request bodies the API's routes parse, read from `app/api/v1/**\/route.ts` (the file's place gives the
 * path, `[id]` -> `{id}`; each exported method's `parseJsonBody(request, X)` gives the body) and resolved to
 * the declarations exported by `lib/api/schemas/*`.
 */
async function parsedBodies(): Promise<ParsedBody[]> {
  const declared = new Map<string, RequestBody<unknown>>();
  for (const file of trackedFiles("lib/api/schemas")) {
    const module: Record<string, unknown> = await import(path.resolve(file));
    for (const [name, value] of Object.entries(module)) if (isRequestBody(value)) declared.set(name, value);
  }
  const parsed: ParsedBody[] = [];
  for (const route of trackedFiles("app/api/v1").filter((file) => file.endsWith("/route.ts"))) {
    const apiPath = route
      .replace(/^app\/api\/v1/, "")
      .replace(/\/route\.ts$/, "")
      .replace(/\[(\w+)\]/g, "{$1}");
    const handlers = readFileSync(route, "utf8").split(/(?=^export const )/m);
    for (const handler of handlers) {
      const method = /^export const (GET|POST|PUT|PATCH|DELETE) =/.exec(handler)?.[1];
      const name = /parseJsonBody\(\s*request,\s*(\w+)/.exec(handler)?.[1];
      if (!method || !name) continue;
      const body = declared.get(name);
      if (!body) throw new Error(`${route} ${method} parses ${name}, which lib/api/schemas does not declare`);
      parsed.push({ route, method, path: apiPath, name, body });
    }
  }
  return parsed;
}

let bodies: ParsedBody[] = [];
beforeAll(async () => {
  bodies = await parsedBodies();
}, 30_000);

/** Where each code is answered: its first site in the tree, or the body declaration a route parses with. */
function codesInTree(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of trackedFiles("lib", "app", "proxy.ts")) {
    const text = readFileSync(file, "utf8");
    for (const pattern of CODE_SITES) {
      for (const match of text.matchAll(pattern)) {
        const code = match[1] ?? "";
        if (!found.has(code) && !ZOD_ISSUE_CODES.has(code)) found.set(code, file);
      }
    }
  }
  for (const { route, name, body } of bodies) {
    for (const code of fieldCodesOf(body)) if (!found.has(code)) found.set(code, `${route} (${name})`);
  }
  return found;
}

type Operation = { responses?: Record<string, { description?: string }> };

/** The document's operations by `METHOD /path`. */
function documentOperations(): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [apiPath, item] of Object.entries(buildOpenApiDocument().paths ?? {})) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      operations.set(`${method.toUpperCase()} ${apiPath}`, operation as Operation);
    }
  }
  return operations;
}

/** The codes a description names, written as `code`. */
const codesNamed = (text: string | undefined) =>
  new Set([...(text ?? "").matchAll(/`([a-z][a-z0-9_]*)`/g)].map((match) => match[1] ?? ""));

describe("the error code registry", () => {
  it("holds every code the tree answers with", () => {
    const found = codesInTree();
    // The scan must see the throw sites at all: a broken pattern would pass vacuously.
    expect(found.get("invalid_amount")).toBeDefined();
    expect(found.get("payment_expired")).toBe("lib/rails/x402/payload.ts");
    expect(found.get("signed_out")).toBe("lib/dashboard/bff/bff.ts");
    // Field codes are seen where they are declared once, through the route that parses the body.
    expect(found.get("invalid_cycle")).toBe("app/api/v1/servers/route.ts (CreateServerBody)");
    expect(found.get("amount_too_high")).toBe("app/api/v1/topups/route.ts (CreateTopupBody)");
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

  it("is documented: every API code is named by a response of its status, or among the common codes", () => {
    const common = codesNamed(buildOpenApiDocument().info.description);
    expect(common.has("internal_error")).toBe(true);
    const byStatus = new Map<string, Set<string>>();
    for (const operation of documentOperations().values()) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const codes = byStatus.get(status) ?? new Set();
        for (const code of codesNamed(response.description)) codes.add(code);
        byStatus.set(status, codes);
      }
    }
    const undocumented = Object.entries(ERROR_CODES)
      .filter(([code, { status }]) => !common.has(code) && !byStatus.get(String(status))?.has(code))
      .map(([code, { status }]) => `${code} (${status})`);
    expect(undocumented).toEqual([]);
  });

  it("documents the operator's codes in the operator's OpenAPI document, and keeps them out of the API's", () => {
    const text = JSON.stringify(buildOperatorOpenApiDocument());
    const undocumented = Object.keys(OPERATOR_ERROR_CODES).filter((code) => !text.includes(`\`${code}\``));
    expect(undocumented).toEqual([]);
    const overlap = Object.keys(OPERATOR_ERROR_CODES).filter((code) => Object.hasOwn(ERROR_CODES, code));
    expect(overlap).toEqual([]);
  });

  it("lists, in each operation's 400, the codes of the body its route parses", () => {
    expect(bodies.length).toBeGreaterThan(15);
    const operations = documentOperations();
    const missing = bodies.flatMap(({ route, method, path: apiPath, name, body }) => {
      const operation = operations.get(`${method} ${apiPath}`);
      if (!operation) return [`${method} ${apiPath} (${route}) is not in the document`];
      const listed = codesNamed(operation.responses?.["400"]?.description);
      return [...BODY_ERRORS, ...fieldCodesOf(body)]
        .filter((code) => !listed.has(code))
        .map((code) => `${method} ${apiPath}: ${code} (${name})`);
    });
    expect(missing).toEqual([]);
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
