/**
 * The MCP server at /mcp: the official SDK's server over its Streamable HTTP transport, stateless (each
 * POST carries one JSON-RPC message and gets its answer as JSON), so any instance of the app answers any call.
 * A tool call becomes the HTTP request of its API operation and is answered by that operation's own route
 * (`dispatch`, given by the app), with the caller's key and address: scopes, conditions, spend caps,
 * validation, idempotency and error codes are the API's, not a copy of them.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { API_VERSION_INFO } from "@/lib/api/openapi/info";
import { ArgumentError, type OperationRequest, operationTools, toRequest } from "./operation-tools";
import { CALL_TOOL, curatedTool, nextStepOf, SEARCH_TOOL, searchOperations, toolDefinitions } from "./tools";

/** Answers one operation's request as the API would (the app runs the operation's route). */
export type Dispatch = (request: OperationRequest) => Promise<Response>;

const INSTRUCTIONS =
  "Prepaid VPS hosting paid in crypto. Start with get_catalog (plans, locations, os, prices), get_account " +
  "(balance), then create_server; create_topup adds funds. Every tool answers as the REST API /api/v1 " +
  `does, with the key this connection sends. ${SEARCH_TOOL} finds any other operation, ${CALL_TOOL} calls it. ` +
  "Docs for agents: /llms.txt.";

/** Headers of an answer a caller needs beyond its body: x402's challenge and receipt, where to look, when to retry. */
const KEPT_HEADERS = [
  "payment-required",
  "payment-response",
  "x-payment-response",
  "location",
  "retry-after",
];

const textResult = (value: unknown, isError: boolean, next?: string): CallToolResult => {
  const text = JSON.stringify(value);
  return {
    content: [{ type: "text", text: next ? `${text}\nNext: ${next}` : text }],
    ...(value && typeof value === "object" && !Array.isArray(value)
      ? { structuredContent: value as Record<string, unknown> }
      : {}),
    ...(isError ? { isError: true } : {}),
  };
};

/** An operation's answer as a tool result: its body (and kept headers); an error is marked, with its code. */
async function resultOf(response: Response, next: string | undefined): Promise<CallToolResult> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // A body that is not JSON is passed on as it is.
  }
  const headers = Object.fromEntries(
    KEPT_HEADERS.flatMap((name) => {
      const value = response.headers.get(name);
      return value === null ? [] : [[name, value]];
    }),
  );
  const kept = Object.keys(headers).length > 0 ? { headers } : {};
  if (response.ok) {
    const value = body && typeof body === "object" && !Array.isArray(body) ? { ...body, ...kept } : body;
    return textResult(value, false, next);
  }
  const error = body && typeof body === "object" ? body : { error: "internal_error", message: String(body) };
  return textResult({ status: response.status, ...error, ...kept }, true);
}

/** The API's 400 for arguments that do not fit the operation, as a tool error. */
const argumentRefusal = (message: string) =>
  textResult({ status: 400, error: "invalid_request", message }, true);

async function callOperation(
  dispatch: Dispatch,
  operationId: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const tool = operationTools().get(operationId);
  if (!tool) {
    return textResult(
      {
        status: 404,
        error: "not_found",
        message: `No operation ${operationId}: find one with ${SEARCH_TOOL}.`,
      },
      true,
    );
  }
  let request: OperationRequest;
  try {
    request = toRequest(tool, args);
  } catch (error) {
    if (error instanceof ArgumentError) return argumentRefusal(error.message);
    throw error;
  }
  return resultOf(await dispatch(request), nextStepOf(operationId));
}

function objectArgument(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return {};
  return typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** One tool call, by name. */
async function callTool(
  dispatch: Dispatch,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  if (name === SEARCH_TOOL) {
    const query = typeof args.query === "string" ? args.query : "";
    const limit = typeof args.limit === "number" ? Math.min(20, Math.max(1, Math.floor(args.limit))) : 5;
    const matches = searchOperations(query, limit);
    return textResult(
      { operations: matches },
      false,
      matches.length > 0 ? `Call one with ${CALL_TOOL}.` : "Try other words, e.g. a resource's name.",
    );
  }
  if (name === CALL_TOOL) {
    const operationArgs = objectArgument(args.arguments);
    if (typeof args.operation_id !== "string" || !operationArgs) {
      return argumentRefusal("Send operation_id (a string) and arguments (an object).");
    }
    return callOperation(dispatch, args.operation_id, operationArgs);
  }
  const curated = curatedTool(name);
  if (!curated) return argumentRefusal(`No tool named ${name}.`);
  return callOperation(dispatch, curated.tool.operationId, args);
}

/**
 * The SDK's JSON Schema validator, shared: a server makes its own otherwise, and compiling one took 2.7 ms,
 * on every request of a server that lives for one. This one validates nothing today (no elicitation).
 */
let validator: AjvJsonSchemaValidator | undefined;

/** A server for one HTTP request (stateless: nothing is kept between requests). */
function mcpServer(dispatch: Dispatch): Server {
  validator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: "vps", title: API_VERSION_INFO.title, version: API_VERSION_INFO.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolDefinitions() }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(dispatch, request.params.name, request.params.arguments ?? {}),
  );
  return server;
}

/**
 * Answers one HTTP request to /mcp (POST with a JSON-RPC message, `parsedBody` when the caller has read it;
 * GET and DELETE as the transport says for a server without sessions).
 */
export async function handleMcpRequest(
  request: Request,
  dispatch: Dispatch,
  parsedBody?: unknown,
): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  const server = mcpServer(dispatch);
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
  } finally {
    await server.close();
  }
}
