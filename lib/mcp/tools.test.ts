import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/api/openapi/operations";
import { ArgumentError, operationTools, toRequest } from "./operation-tools";
import { CALL_TOOL, curatedTool, SEARCH_TOOL, searchOperations, toolDefinitions, toolName } from "./tools";

const tool = (id: string) => {
  const found = operationTools().get(id);
  if (!found) throw new Error(`no tool for ${id}`);
  return found;
};

describe("operations as tools", () => {
  it("makes every operation but the console's WebSocket callable, with the route's path and method", () => {
    const callable = [...OPERATIONS.values()].filter((operation) => operation.id !== "consoleWebSocket");
    expect(callable.length).toBeGreaterThan(50);
    for (const operation of callable) {
      const found = tool(operation.id);
      expect([found.method, found.path, found.scope]).toEqual([
        operation.method,
        operation.path,
        operation.scope,
      ]);
    }
  });

  it("has a route module answering each operation's method (app/mcp/api-routes.ts)", () => {
    // Read as text: the route modules need the app around them to load.
    const table = readFileSync(path.join(import.meta.dirname, "../../app/mcp/api-routes.ts"), "utf8");
    for (const found of operationTools().values()) {
      const line = new RegExp(`"${found.path.replace(/[{}]/g, "\\$&")}": (\\w+),`).exec(table);
      expect(line, found.path).not.toBeNull();
      const module = new RegExp(`import \\* as ${line?.[1]} from "@/(.+)";`).exec(table)?.[1];
      const source = readFileSync(path.join(import.meta.dirname, "../..", `${module}.ts`), "utf8");
      expect(source, `${found.method} ${found.path}`).toMatch(
        new RegExp(
          `export (const|async function|function) ${found.method}\\b|export \\{[^}]*\\b${found.method}\\b`,
        ),
      );
    }
  });

  it("takes its arguments from the operation's own schema: path, headers and the body's fields", () => {
    const order = tool("createServer");
    expect(order.body).toBe("fields");
    expect(Object.keys(order.inputSchema.properties)).toEqual(
      expect.arrayContaining(["idempotency_key", "plan", "location", "os", "cycle", "ssh_keys"]),
    );
    expect(order.inputSchema.required).toEqual(expect.arrayContaining(["plan", "location", "os"]));
    expect(JSON.stringify(order.inputSchema)).not.toContain("$ref");
    const action = tool("serverPowerAction");
    expect(action.inputSchema.required).toEqual(expect.arrayContaining(["id", "action"]));
    expect(action.inputSchema.properties.action).toMatchObject({ enum: ["start", "stop", "reboot"] });
  });

  it("turns arguments back into the route's request", () => {
    expect(toRequest(tool("serverPowerAction"), { id: "12", action: "reboot" })).toEqual({
      method: "POST",
      path: "/servers/{id}/actions",
      pathAndQuery: "/servers/12/actions",
      pathParams: { id: "12" },
      headers: {},
      body: { action: "reboot" },
    });
    const order = toRequest(tool("createServer"), { plan: "pup", idempotency_key: "k-1" });
    expect(order.headers).toEqual({ "Idempotency-Key": "k-1" });
    expect(order.body).toEqual({ plan: "pup" });
    expect(toRequest(tool("listServers"), { limit: 5 }).pathAndQuery).toBe("/servers?limit=5");
    expect(toRequest(tool("getServer"), { id: "../keys" }).pathAndQuery).toBe("/servers/..%2Fkeys");
  });

  it("refuses arguments an operation without a body does not take, and a missing path parameter", () => {
    expect(() => toRequest(tool("getServer"), { id: "1", plan: "pup" })).toThrow(ArgumentError);
    expect(() => toRequest(tool("getServer"), {})).toThrow(/needs the argument id/);
  });
});

describe("the tool list", () => {
  it("is the curated operations under snake_case names, then search and call", () => {
    const names = toolDefinitions().map((definition) => definition.name);
    expect(names).toEqual(
      expect.arrayContaining(["get_catalog", "get_account", "create_topup", "get_topup", "create_server"]),
    );
    expect(names.slice(-2)).toEqual([SEARCH_TOOL, CALL_TOOL]);
    expect(new Set(names).size).toBe(names.length);
    expect(curatedTool("create_server")?.tool.operationId).toBe("createServer");
    expect(curatedTool("create_webhook")).toBeUndefined();
    expect(toolName("getServerCredentials")).toBe("get_server_credentials");
  });

  it("says each tool's scope, and marks reads and destructive operations", () => {
    const byName = new Map(toolDefinitions().map((definition) => [definition.name, definition]));
    expect(byName.get("create_server")?.description).toContain("billing:spend");
    expect(byName.get("get_server")?.annotations.readOnlyHint).toBe(true);
    expect(byName.get("restore_snapshot")?.annotations.destructiveHint).toBe(true);
  });

  it("finds the operations outside it by words, with their arguments", () => {
    const [first] = searchOperations("create webhook");
    expect(first?.operation_id).toBe("createWebhook");
    expect(first?.arguments.properties).toHaveProperty("url");
    expect(searchOperations("rescue").map((match) => match.operation_id)).toEqual(
      expect.arrayContaining(["enterRescue", "leaveRescue"]),
    );
    expect(searchOperations("?!")).toEqual([]);
  });
});
