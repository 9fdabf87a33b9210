/**
 * The tools the MCP server offers: a curated set, each one API operation under its snake_case name with the
 * next step to take, and two over the whole document (search the operations; call any one by its id), so
 * no operation is out of reach and the list stays short. Every tool is answered by the operation's own route.
 */
import { type OperationTool, operationTools } from "./operation-tools";

/** What a curated tool adds to its operation: the next step its answer points to. */
type Curated = { next: string };

/** The operations an agent needs to buy, use and renew a server, in the order it meets them. */
const CURATED: Record<string, Curated> = {
  getCatalog: {
    next: "Pick a plan, location and os (each with its price per cycle) and order with create_server.",
  },
  getAccount: {
    next: "If balance_usd is below the price, top up with create_topup (or pay the order itself with x402).",
  },
  createTopup: {
    next:
      "Send deposit_amount of the coin to deposit_address (payment_uri holds both), then poll get_topup " +
      "until status is completed. With x_payment_mode=x402 the answer is the x402 payment requirements.",
  },
  getTopup: { next: "Once status is completed the balance is credited: read it with get_account." },
  createServer: {
    next:
      "The server is provisioning: poll get_server with its id until status is active, then read the " +
      "login with get_server_credentials. Short of balance, the 402 carries the x402 offer for the order: " +
      "sign it and call again with x_payment (or payment_signature); it is settled once the server answers.",
  },
  listServers: { next: "Read one with get_server; pass next_cursor as cursor for the next page." },
  getServer: {
    next: "When active, ip is set: log in as root (get_server_credentials). Renew before expires_at.",
  },
  serverPowerAction: { next: "Poll get_server until power_state shows the result." },
  getServerCredentials: { next: "Log in with ssh root@<ip>." },
  renewServer: {
    next:
      "expires_at moved on by one cycle; auto_renew is set with update_server. Short of balance, the 402 " +
      "carries the x402 offer for the renewal: sign it and call again with x_payment (or payment_signature).",
  },
  updateServer: { next: "Read it back with get_server." },
  listSnapshots: { next: "Restore one with restore_snapshot or take one with take_snapshot." },
  takeSnapshot: { next: "Poll list_snapshots until its status is available." },
  restoreSnapshot: { next: "Poll get_server until status is active again." },
};

/** The two tools over the whole document. */
export const SEARCH_TOOL = "search_operations";
export const CALL_TOOL = "call_operation";

/** `createServer` as a tool's name: `create_server`. */
export const toolName = (operationId: string) =>
  operationId.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Operations that destroy something or overwrite a disk: said to the client so it can ask first. */
const DESTRUCTIVE = new Set(["terminateServer", "reinstallServer", "restoreSnapshot", "deleteSnapshot"]);

export type ToolDefinition = {
  name: string;
  title?: string;
  description: string;
  inputSchema: OperationTool["inputSchema"];
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
};

/** What a key needs to call it, in words. */
function scopeNote(tool: OperationTool): string {
  if (tool.scope === null) return "No key needed.";
  if (tool.scope === "none") return "Any key.";
  return `Needs a key with the ${tool.scope} scope.`;
}

function annotationsOf(tool: OperationTool): ToolDefinition["annotations"] {
  const readOnly = tool.method === "GET";
  return {
    readOnlyHint: readOnly,
    destructiveHint: DESTRUCTIVE.has(tool.operationId),
    idempotentHint: readOnly || tool.method === "PUT" || tool.method === "DELETE",
  };
}

/** The first paragraph of an operation's description, at most a few sentences. */
function shortDescription(text: string): string {
  const first = text.split("\n\n")[0] ?? "";
  return first.length > 600 ? `${first.slice(0, first.lastIndexOf(". ", 600) + 1)}` : first;
}

function curatedDefinition(tool: OperationTool): ToolDefinition {
  return {
    name: toolName(tool.operationId),
    title: tool.summary,
    description:
      `${tool.summary} (${tool.method} /api/v1${tool.path}). ${scopeNote(tool)} ` +
      shortDescription(tool.description),
    inputSchema: tool.inputSchema,
    annotations: annotationsOf(tool),
  };
}

const SEARCH_DEFINITION: ToolDefinition = {
  name: SEARCH_TOOL,
  title: "Search the API's operations",
  description:
    "Find any API operation by words (e.g. 'webhook', 'rescue', 'snapshot restore', 'keys'): answers each " +
    "match's operation_id, method, path, summary, the scope it needs and the JSON Schema of its arguments. " +
    `Call one with ${CALL_TOOL}.`,
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, maxLength: 200, description: "Words to look for." },
      limit: { type: "integer", minimum: 1, maximum: 20, default: 5, description: "At most this many." },
    },
    required: ["query"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
};

const CALL_DEFINITION: ToolDefinition = {
  name: CALL_TOOL,
  title: "Call an API operation by its id",
  description:
    `Calls the operation ${SEARCH_TOOL} named, with the same key, checks and answers as the HTTP API: ` +
    "arguments are its path, query and header parameters (headers in snake_case, e.g. idempotency_key) and " +
    "its body's fields, validated as the API validates them.",
  inputSchema: {
    type: "object",
    properties: {
      operation_id: { type: "string", minLength: 1, maxLength: 100, description: "e.g. createWebhook" },
      arguments: { type: "object", description: "The operation's arguments.", additionalProperties: true },
    },
    required: ["operation_id"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

let definitions: ToolDefinition[] | undefined;

/** Every tool as tools/list answers it, built once per process. */
export function toolDefinitions(): ToolDefinition[] {
  if (definitions) return definitions;
  const tools = operationTools();
  const curated = Object.keys(CURATED).map((id) => {
    const tool = tools.get(id);
    if (!tool) throw new Error(`curated MCP tool names no operation: ${id}`);
    return curatedDefinition(tool);
  });
  definitions = [...curated, SEARCH_DEFINITION, CALL_DEFINITION];
  return definitions;
}

/** The operation a curated tool's name stands for, with its next step; undefined for any other name. */
export function curatedTool(name: string): { tool: OperationTool; next: string } | undefined {
  for (const [id, curated] of Object.entries(CURATED)) {
    if (toolName(id) !== name) continue;
    const tool = operationTools().get(id);
    return tool ? { tool, next: curated.next } : undefined;
  }
  return undefined;
}

/** The next step after an operation, when it is a curated one. */
export const nextStepOf = (operationId: string): string | undefined => CURATED[operationId]?.next;

export type OperationMatch = {
  operation_id: string;
  method: string;
  path: string;
  summary: string;
  scope: string | null;
  tool?: string;
  arguments: OperationTool["inputSchema"];
};

/**
 * The operations whose id, path, summary, tag or description hold the query's words: those with the most,
 * and with them in the id, path or summary, first.
 */
export function searchOperations(query: string, limit = 5): OperationMatch[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9_{}/-]+/)
    .filter((word) => word.length > 1);
  if (words.length === 0) return [];
  const scored = [...operationTools().values()].map((tool) => {
    const head = `${tool.operationId} ${tool.method} ${tool.path} ${tool.summary}`.toLowerCase();
    const tag = tool.tag.toLowerCase();
    const body = tool.description.toLowerCase();
    let score = 0;
    for (const word of words) {
      if (head.includes(word)) score += 3;
      else if (tag.includes(word)) score += 2;
      else if (body.includes(word)) score += 1;
    }
    return { tool, score };
  });
  return scored
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map(({ tool }) => ({
      operation_id: tool.operationId,
      method: tool.method,
      path: `/api/v1${tool.path}`,
      summary: tool.summary,
      scope: tool.scope,
      ...(CURATED[tool.operationId] ? { tool: toolName(tool.operationId) } : {}),
      arguments: tool.inputSchema,
    }));
}
