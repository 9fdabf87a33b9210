import { authenticateRequest } from "@/lib/accounts/auth";
import { readLimited } from "@/lib/api/body";
import { ApiError } from "@/lib/api/errors";
import { publicRoute, responseForError } from "@/lib/api/route";
import { config } from "@/lib/config/env";
import type { OperationRequest } from "@/lib/mcp/operation-tools";
import { handleMcpRequest } from "@/lib/mcp/server";
import { API_ROUTES } from "./api-routes";

type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

/** Headers of the MCP request that describe it alone, not the caller: the operation's request sets its own. */
const MCP_ONLY_HEADERS = [
  "accept",
  "content-type",
  "content-length",
  "cookie",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
];

/**
 * Runs an operation's own route with the MCP request's key, client address headers and the tool's arguments
 * as its path, query, headers and body: whatever the route checks and answers, the tool does.
 */
function dispatcher(request: Request) {
  const callerHeaders = new Headers(request.headers);
  for (const name of MCP_ONLY_HEADERS) callerHeaders.delete(name);
  return async (operation: OperationRequest): Promise<Response> => {
    const handler = API_ROUTES[operation.path]?.[operation.method] as RouteHandler | undefined;
    if (!handler) throw new Error(`no route answers ${operation.method} ${operation.path}`);
    const headers = new Headers(callerHeaders);
    for (const [name, value] of Object.entries(operation.headers)) headers.set(name, value);
    const hasBody = operation.body !== undefined;
    if (hasBody) headers.set("content-type", "application/json");
    const url = new URL(`/api/v1${operation.pathAndQuery}`, request.url);
    const routed = new Request(url, {
      method: operation.method,
      headers,
      body: hasBody ? JSON.stringify(operation.body) : undefined,
    });
    return handler(routed, { params: Promise.resolve(operation.pathParams) });
  };
}

/**
 * The MCP server (Streamable HTTP, stateless JSON answers). The connection's Bearer key is checked first, as
 * the API checks it (401 with `WWW-Authenticate`, the bad-key limit per address); every tool call is then
 * authorized again by the route it runs, for that operation's scope.
 */
const mcp = publicRoute(async ({ request, client, address }) => {
  try {
    await authenticateRequest(request, { client, address });
  } catch (error) {
    const response = responseForError(error);
    if (response.status === 401) response.headers.set("WWW-Authenticate", 'Bearer realm="mcp"');
    return response;
  }
  const dispatch = dispatcher(request);
  if (request.method !== "POST") return handleMcpRequest(request, dispatch);
  // The message is read within the API's body limit before the transport parses it.
  const text = await readLimited(request, config().maxBodyBytes);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_json", "The request body is not valid JSON.");
  }
  return handleMcpRequest(request, dispatch, message);
});

export { mcp as GET, mcp as POST, mcp as DELETE };
