import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ANY_KEY, SCOPE_PRESETS, SCOPES, withNeededScopes } from "@/lib/api/scopes";
import { API_KEY_SCOPES } from "@/lib/db/types";
import { buildOpenApiDocument } from "./document";
import { OPERATIONS } from "./operations";

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  "x-scope"?: string;
  responses?: Record<string, { description?: string }>;
};

/** The published document's operations, as `METHOD /path`. */
function published(): [string, Operation][] {
  return Object.entries(buildOpenApiDocument().paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(
      ([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation],
    ),
  );
}

/** Each `authedRoute("id", ...)` of app/api/v1, with the method and path its file serves. */
function authedRoutes(): { file: string; method: string; path: string; id: string }[] {
  const files = execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "app/api/v1"],
    {
      encoding: "utf8",
    },
  )
    .split("\n")
    .filter((file) => file.endsWith("/route.ts"));
  return files.flatMap((file) => {
    const path = file
      .replace(/^app\/api\/v1/, "")
      .replace(/\/route\.ts$/, "")
      .replace(/\[(\w+)\]/g, "{$1}");
    const text = readFileSync(file, "utf8");
    // A handler is exported under its method's name, or wrapped first and exported as it (demo payments).
    return [...text.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b[^=]*= authedRoute\("(\w+)"/g)]
      .map((match) => ({ file, method: match[1] ?? "", path, id: match[2] ?? "" }))
      .concat(
        [...text.matchAll(/const (\w+) = authedRoute\("(\w+)"/g)].flatMap((match) => {
          const exported = new RegExp(
            `export const (GET|POST|PUT|PATCH|DELETE)\\b[^=]*=[^;]*\\b${match[1]}\\(`,
          ).exec(text);
          return exported ? [{ file, method: exported[1] ?? "", path, id: match[2] ?? "" }] : [];
        }),
      );
  });
}

describe("the scope of every operation", () => {
  it("is declared by every operation: a key scope in x-scope and its security requirement, or no key at all", () => {
    const operations = published();
    expect(operations.length).toBeGreaterThan(45);
    const undeclared = operations.flatMap(([name, operation]) => {
      const scope = operation["x-scope"];
      if (scope === undefined) {
        // No scope: only an operation that says it takes no key.
        return Array.isArray(operation.security) && operation.security.length === 0 ? [] : [name];
      }
      const known = scope === ANY_KEY || Object.hasOwn(SCOPES, scope);
      const required = operation.security?.[0]?.bearerAuth;
      const matches = JSON.stringify(required) === JSON.stringify(scope === ANY_KEY ? [] : [scope]);
      return known && matches ? [] : [`${name} (${scope})`];
    });
    expect(undeclared).toEqual([]);
  });

  it("names the refusals of scopes and conditions in every operation that takes a key", () => {
    const missing = published().flatMap(([name, operation]) => {
      if (operation["x-scope"] === undefined) return [];
      const forbidden = operation.responses?.["403"]?.description ?? "";
      const unauthorized = operation.responses?.["401"]?.description ?? "";
      const needed = [
        ...(operation["x-scope"] === ANY_KEY ? [] : ["`missing_scope`"]),
        "`address_not_allowed`",
      ].filter((code) => !forbidden.includes(code));
      if (!unauthorized.includes("`key_expired`")) needed.push("`key_expired`");
      return needed.map((code) => `${name}: ${code}`);
    });
    expect(missing).toEqual([]);
  });

  it("is enforced by each route for the operation its file serves, and every keyed operation has its route", () => {
    const routes = authedRoutes();
    const wrong = routes.flatMap((route) => {
      const operation = OPERATIONS.get(route.id);
      if (!operation) return [`${route.file}: ${route.id} is no operation`];
      return operation.method === route.method && operation.path === route.path
        ? []
        : [`${route.file} ${route.method} names ${route.id}, which is ${operation.method} ${operation.path}`];
    });
    expect(wrong).toEqual([]);
    const routed = new Set(routes.map((route) => route.id));
    const keyed = [...OPERATIONS.values()].filter((operation) => operation.scope !== null);
    expect(keyed.length).toBeGreaterThan(40);
    // The console's socket is the one keyless operation on a server path: a ticket opens it.
    expect(keyed.filter((operation) => !routed.has(operation.id)).map((operation) => operation.id)).toEqual(
      [],
    );
  });

  it("finds the server an operation on one server acts on, and none for the others", () => {
    expect(OPERATIONS.get("getServer")?.serverParam).toBe("id");
    expect(OPERATIONS.get("restoreSnapshot")?.serverParam).toBe("id");
    expect(OPERATIONS.get("listServers")?.serverParam).toBeUndefined();
    expect(OPERATIONS.get("getWebhook")?.serverParam).toBeUndefined();
  });

  it("uses every scope somewhere, so none is a name without a meaning", () => {
    const used = new Set([...OPERATIONS.values()].map((operation) => operation.scope));
    expect(API_KEY_SCOPES.filter((scope) => !used.has(scope))).toEqual([]);
  });
});

describe("the scopes", () => {
  it("need only scopes that exist, and what they need needs nothing further (one step brings all)", () => {
    for (const [scope, facts] of Object.entries(SCOPES)) {
      for (const needed of facts.needs) {
        expect(API_KEY_SCOPES, `${scope} needs ${needed}`).toContain(needed);
        expect(SCOPES[needed].needs, `${needed}, needed by ${scope}`).toEqual([]);
      }
    }
  });

  it("bring along what they need, in the vocabulary's order, saying what was added", () => {
    expect(withNeededScopes(["billing:spend"])).toEqual({
      scopes: ["servers:read", "billing:spend", "account:read"],
      added: ["servers:read", "account:read"],
    });
    expect(withNeededScopes(["servers:read", "servers:power"])).toEqual({
      scopes: ["servers:read", "servers:power"],
      added: [],
    });
  });

  it("offers presets that are whole already: nothing a preset holds needs a scope it lacks", () => {
    for (const preset of SCOPE_PRESETS) expect(withNeededScopes(preset.scopes).added, preset.id).toEqual([]);
    const readOnly = SCOPE_PRESETS.find((preset) => preset.id === "read-only");
    expect(readOnly?.scopes.every((scope) => scope.endsWith(":read"))).toBe(true);
  });
});
