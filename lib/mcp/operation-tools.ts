/**
 * API operations as MCP tools, read from the OpenAPI document (itself generated from the zod declarations the
 * routes parse with), so a tool's input schema is the operation's and nothing is declared twice. A tool's
 * arguments are the operation's path, query and header parameters (headers by a snake_case name) beside the
 * fields of its JSON body; `toRequest` turns them back into the HTTP request the route takes.
 */
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { OPERATIONS } from "@/lib/api/openapi/operations";

type JsonSchema = Record<string, unknown>;
type Parameter = { in: "path" | "query" | "header"; name: string; required?: boolean; schema?: JsonSchema };
type OpenApiOperation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  "x-scope"?: string;
};

/** One operation as a tool can call it. */
export type OperationTool = {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  description: string;
  /** The scope a key needs (`none`: any key), or null for an operation that takes no key. */
  scope: string | null;
  /** The JSON Schema of the tool's arguments. */
  inputSchema: JsonSchema & { type: "object"; properties: Record<string, JsonSchema>; required?: string[] };
  /** Where each argument goes: path, query or a header (by its HTTP name); any other is a body field. */
  params: Record<string, { in: "path" | "query" | "header"; name: string }>;
  /** Whether the operation takes a JSON body, and whether its fields sit beside the parameters or under `body`. */
  body: "none" | "fields" | "nested";
};

/** An HTTP header's name as an argument: `Idempotency-Key` is `idempotency_key`. */
const argumentName = (header: string) => header.toLowerCase().replace(/-/g, "_");

/** The schema with every `#/components/schemas/...` reference replaced by what it names. */
function inlineRefs(schema: unknown, components: Record<string, JsonSchema>, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, components, seen));
  if (schema === null || typeof schema !== "object") return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === "string") {
    const name = ref.replace("#/components/schemas/", "");
    // A schema that holds itself is left as a plain object: no tool argument recurses.
    if (seen.includes(name)) return { type: "object" };
    return inlineRefs(components[name] ?? {}, components, [...seen, name]);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, inlineRefs(value, components, seen)]),
  );
}

function toolOf(
  path: string,
  method: string,
  operation: OpenApiOperation,
  components: Record<string, JsonSchema>,
): OperationTool {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const params: OperationTool["params"] = {};
  for (const parameter of operation.parameters ?? []) {
    const name = parameter.in === "header" ? argumentName(parameter.name) : parameter.name;
    properties[name] = inlineRefs(parameter.schema ?? {}, components) as JsonSchema;
    params[name] = { in: parameter.in, name: parameter.name };
    if (parameter.required) required.push(name);
  }
  let body: OperationTool["body"] = "none";
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  if (bodySchema) {
    const schema = inlineRefs(bodySchema, components) as JsonSchema;
    const fields = schema.properties as Record<string, JsonSchema> | undefined;
    const clash = fields && Object.keys(fields).some((field) => field in properties || field === "body");
    if (schema.type === "object" && fields && !clash) {
      body = "fields";
      Object.assign(properties, fields);
      if (operation.requestBody?.required !== false) required.push(...((schema.required as string[]) ?? []));
    } else {
      body = "nested";
      properties.body = schema;
      if (operation.requestBody?.required) required.push("body");
    }
  }
  const declared = OPERATIONS.get(operation.operationId ?? "");
  return {
    operationId: operation.operationId ?? `${method} ${path}`,
    method: method.toUpperCase(),
    path,
    tag: operation.tags?.[0] ?? "",
    summary: operation.summary ?? "",
    description: operation.description ?? "",
    scope: declared?.scope ?? operation["x-scope"] ?? null,
    inputSchema: {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    params,
    body,
  };
}

/** Operations a tool cannot carry: a WebSocket upgrade is not a JSON request and answer. */
const NOT_CALLABLE = new Set(["consoleWebSocket"]);

function collectTools(): Map<string, OperationTool> {
  const document = buildOpenApiDocument() as unknown as {
    paths: Record<string, Record<string, OpenApiOperation>>;
    components?: { schemas?: Record<string, JsonSchema> };
  };
  const components = document.components?.schemas ?? {};
  const tools = new Map<string, OperationTool>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation?.operationId || NOT_CALLABLE.has(operation.operationId)) continue;
      tools.set(operation.operationId, toolOf(path, method, operation, components));
    }
  }
  return tools;
}

let cached: Map<string, OperationTool> | undefined;

/** Every callable operation by its id, built once per process. */
export function operationTools(): ReadonlyMap<string, OperationTool> {
  cached ??= collectTools();
  return cached;
}

/** Arguments a tool was given that do not fit its operation: the API's 400 words for them. */
export class ArgumentError extends Error {}

export type OperationRequest = {
  method: string;
  /** The operation's path as the document writes it (`/servers/{id}`). */
  path: string;
  /** The path under /api/v1 with its parameters filled in, and its query. */
  pathAndQuery: string;
  /** Path parameters by name, as a route reads them. */
  pathParams: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
};

/** The HTTP request an operation's route takes, from a tool's arguments. */
export function toRequest(tool: OperationTool, args: Record<string, unknown>): OperationRequest {
  const pathParams: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const query = new URLSearchParams();
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const param = tool.params[name];
    if (!param) {
      if (tool.body === "fields") fields[name] = value;
      else if (tool.body === "nested" && name === "body") Object.assign(fields, { body: value });
      else throw new ArgumentError(`${tool.operationId} takes no argument named ${name}.`);
      continue;
    }
    if (value === undefined || value === null) continue;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (param.in === "path") pathParams[param.name] = text;
    else if (param.in === "query") query.set(param.name, text);
    else headers[param.name] = text;
  }
  for (const [name, param] of Object.entries(tool.params)) {
    if (param.in === "path" && pathParams[param.name] === undefined) {
      throw new ArgumentError(`${tool.operationId} needs the argument ${name}.`);
    }
  }
  const path = tool.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(pathParams[name] ?? ""),
  );
  const search = query.toString();
  const body =
    tool.body === "none" ? undefined : tool.body === "nested" ? (fields.body ?? undefined) : fields;
  return {
    method: tool.method,
    path: tool.path,
    pathAndQuery: search ? `${path}?${search}` : path,
    pathParams,
    headers,
    body,
  };
}
