import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { type Access, DASHBOARD_ACCESS } from "./access";
import { PATH_PARAMETERS } from "./bff";
import { FORWARDED } from "./forward";

type Parameter = { in: string; name: string };

/** The document's operations as `METHOD /path`, each with its parameters. */
function documentOperations(): Map<string, Parameter[]> {
  const paths = buildOpenApiDocument().paths ?? {};
  const operations = new Map<string, Parameter[]>();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      const parameters = (operation as { parameters?: Parameter[] }).parameters ?? [];
      operations.set(`${method.toUpperCase()} ${path}`, parameters);
    }
  }
  return operations;
}

const entries = Object.entries(DASHBOARD_ACCESS) as [string, Access][];
const parametersOf = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "");

/** The /bff route files of their own (not the catch-all), with the path pattern each one serves. */
function bffRouteFiles(): { file: string; pattern: string; text: string }[] {
  return execFileSync("git", ["ls-files", "app/bff"], { encoding: "utf8" })
    .split("\n")
    .filter((file) => file.endsWith("/route.ts") && !file.includes("[..."))
    .map((file) => ({
      file,
      pattern: file
        .replace(/^app\/bff/, "")
        .replace(/\/route\.ts$/, "")
        .replace(/\[(\w+)\]/g, "{$1}"),
      text: readFileSync(file, "utf8"),
    }));
}

describe("the dashboard's access to the API", () => {
  it("gives every operation of the OpenAPI document exactly one line, and names no other", () => {
    const documented = [...documentOperations().keys()].sort();
    expect(entries.map(([operation]) => operation).sort()).toEqual(documented);
    expect(documented.length).toBeGreaterThan(40);
    expect(FORWARDED.length).toBeGreaterThan(25);
  });

  it("forwards under /bff paths the catch-all can match, one entry per path and method", () => {
    const seen = new Set<string>();
    for (const entry of FORWARDED) {
      const key = `${entry.method} ${entry.path.replace(/\{\w+\}/g, "{}")}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      // The /bff path carries the API path's parameters, each with a pattern that lets a real value through.
      expect(parametersOf(entry.path)).toEqual(parametersOf(entry.to));
      for (const name of parametersOf(entry.path)) expect(PATH_PARAMETERS[name], name).toBeDefined();
    }
  });

  it("passes on exactly the query parameters each forwarded operation takes, and only its own headers", () => {
    const operations = documentOperations();
    for (const entry of FORWARDED) {
      const parameters = operations.get(`${entry.method} ${entry.to}`) ?? [];
      const query = parameters.filter((p) => p.in === "query").map((p) => p.name);
      const passed = [...(entry.list ? ["limit", "cursor"] : []), ...(entry.query ?? [])];
      expect(passed.sort(), `${entry.method} ${entry.to}`).toEqual(query.sort());
      const headers = parameters.filter((p) => p.in === "header").map((p) => p.name.toLowerCase());
      for (const name of Object.keys(entry.headers ?? {})) expect(headers).toContain(name);
    }
  });

  it("is passed on by a /bff route of its own that shadows a forwarded path", () => {
    const routes = bffRouteFiles();
    expect(routes.map((route) => route.pattern)).toContain("/servers/{id}/rescue");
    for (const entry of FORWARDED) {
      const route = routes.find((candidate) => candidate.pattern === entry.path);
      if (!route) continue;
      expect(route.text, `${route.file} ${entry.method}`).toMatch(
        new RegExp(`export const ${entry.method} = bffRoute\\(forward\\b`),
      );
    }
  });

  it("names the /bff routes that call an operation themselves, and every call they make", () => {
    const routes = bffRouteFiles();
    const declared = new Set<string>();
    for (const [operation, access] of entries) {
      if (!("routes" in access)) continue;
      const [method, path] = operation.split(" ");
      for (const file of access.routes) {
        expect(existsSync(file), file).toBe(true);
        expect(readFileSync(file, "utf8"), `${file} calls ${operation}`).toContain(`.${method}("${path}"`);
        declared.add(`${file} ${operation}`);
      }
    }
    const made = routes.flatMap(({ file, text }) =>
      [...text.matchAll(/\bapi\.(GET|POST|PUT|PATCH|DELETE)\(\s*"([^"]+)"/g)].map(
        (call) => `${file} ${call[1]} ${call[2]}`,
      ),
    );
    expect(made.length).toBeGreaterThan(5);
    expect(made.filter((call) => !declared.has(call))).toEqual([]);
  });
});
