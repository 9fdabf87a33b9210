/**
 * The API reference as Markdown, for programs that read docs: `/llms.txt` (what the service is, how to
 * start, where each part of the reference is), `/docs/api.md` (the overview, key scopes and the guide) and
 * `/docs/api/<tag>.md` (a tag's operations in full). Generated from the same OpenAPI document and
 * docs/api-guide.md as the HTML pages, so the two cannot say different things.
 */
import { readFileSync } from "node:fs";
import { SCOPES } from "@/lib/api/scopes";
import { API_KEY_SCOPES } from "@/lib/db/types";
import { GUIDE_FILE } from "./guide";
import { apiReference, type ReferenceOperation, type SchemaRegistry, schemaFieldRows } from "./reference";

type Reference = ReturnType<typeof apiReference>;

/** Who may call an operation, in words. */
function keyNeeded(scope: string | undefined): string {
  if (scope === undefined) return "Public: no key needed.";
  if (scope === "none") return "Any API key (`Authorization: Bearer <key>`), whatever its scopes.";
  return `API key with the \`${scope}\` scope.`;
}

/** A table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");

function fieldTable(schema: object, registry: SchemaRegistry): string {
  const rows = schemaFieldRows(schema, registry);
  if (rows.length === 0) return "";
  return [
    "| field | type | notes |",
    "| --- | --- | --- |",
    ...rows.map(
      (row) => `| \`${row.path}${row.optional ? "?" : ""}\` | ${cell(row.type)} | ${cell(row.description)} |`,
    ),
  ].join("\n");
}

function operationMarkdown(
  { path, method, operation }: ReferenceOperation,
  registry: SchemaRegistry,
): string {
  const parts = [
    `## ${method.toUpperCase()} /api/v1${path}`,
    `${operation.summary ?? ""}. Operation id \`${operation.operationId}\`. ${keyNeeded(operation["x-scope"])}`,
  ];
  if (operation.description) parts.push(operation.description);
  if (operation.parameters?.length) {
    parts.push(
      "### Parameters",
      operation.parameters
        .map((parameter) => `- \`${parameter.name}\` (${parameter.in}): ${cell(parameter.description ?? "")}`)
        .join("\n"),
    );
  }
  const body = operation.requestBody?.content?.["application/json"]?.schema;
  if (body) {
    parts.push(`### Request body${operation.requestBody?.required ? "" : " (optional)"}`);
    const table = fieldTable(body, registry);
    if (table) parts.push(table);
  }
  parts.push("### Responses");
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    parts.push(`- **${status}**: ${cell(response.description)}`);
    const schema = response.content?.["application/json"]?.schema;
    const table = status.startsWith("2") && schema ? fieldTable(schema, registry) : "";
    if (table) parts.push(table);
  }
  return parts.join("\n\n");
}

/** The Markdown twin of one tag's page; undefined for a slug no tag has. */
export function tagMarkdown(slug: string, reference: Reference = apiReference()): string | undefined {
  const tag = reference.tags.find((entry) => entry.href === `/docs/api/${slug}`);
  if (!tag) return undefined;
  return [
    `# ${tag.name}`,
    `Part of the API reference of ${reference.document.info.title} (overview, key scopes and guide: ` +
      "[/docs/api.md](/docs/api.md)). Base URL `/api/v1`.",
    ...(tag.description ? [tag.description] : []),
    ...tag.operations.map((entry) => operationMarkdown(entry, reference.registry)),
  ].join("\n\n");
}

/** The guide's Markdown as written, without its comment for maintainers. */
const guideMarkdown = () => readFileSync(GUIDE_FILE, "utf8").replace(/<!--[\s\S]*?-->\s*/g, "");

/** The Markdown twin of /docs/api: what the API is, every operation by tag, the key scopes and the guide. */
export function overviewMarkdown(reference: Reference = apiReference()): string {
  const { document, tags, operations } = reference;
  const scopes = API_KEY_SCOPES.map((scope) => {
    const needing = operations
      .filter(({ operation }) => operation["x-scope"] === scope)
      .map(({ operation }) => `\`${operation.operationId}\``);
    return `| \`${scope}\` | ${cell(SCOPES[scope].summary)} | ${needing.join(", ")} |`;
  });
  return [
    "# API reference",
    `${document.info.title} ${document.info.version}. Base URL \`/api/v1\`. OpenAPI 3.1: ` +
      "[/api/v1/openapi.json](/api/v1/openapi.json). MCP server (Streamable HTTP, same keys): `/mcp`.",
    document.info.description ?? "",
    "## Operations",
    ...tags.map((tag) =>
      [
        `### [${tag.name}](${tag.href}.md)`,
        tag.operations
          .map(
            ({ method, path, operation }) =>
              `- \`${method.toUpperCase()} /api/v1${path}\` (\`${operation.operationId}\`): ${operation.summary}`,
          )
          .join("\n"),
      ].join("\n\n"),
    ),
    "## Key scopes",
    "Each operation that takes a key needs one scope; keys made without scopes hold them all.",
    ["| scope | allows | operations |", "| --- | --- | --- |", ...scopes].join("\n"),
    "## Guide",
    guideMarkdown(),
  ].join("\n\n");
}

/** The first sentence of a text, for a one-line note. */
const firstSentence = (text: string | undefined) => (text ?? "").split(/(?<=\.)\s/)[0] ?? "";

/** /llms.txt: the service in a paragraph, how an agent starts, and where each part of the docs is. */
export function llmsText(reference: Reference = apiReference()): string {
  const { document, tags } = reference;
  return [
    "# Prepaid VPS",
    `> ${firstSentence(document.info.description)} An account is one API call; servers are ordered from a ` +
      "USD balance funded with crypto top-ups, or paid per order with x402 (USDC). Everything is reachable " +
      "over a REST API, an MCP server and these Markdown pages.",
    [
      "Start:",
      "",
      "1. `POST /api/v1/account` (no body) answers an `api_key`; send it as `Authorization: Bearer <key>`.",
      "2. `GET /api/v1/catalog` lists plans, locations, operating systems and every price.",
      "3. Fund the balance with `POST /api/v1/topups` (a deposit address, or x402 with `X-Payment-Mode: x402`).",
      "4. `POST /api/v1/servers` orders a server; poll `GET /api/v1/servers/{id}` until `status` is `active`.",
      "",
      "Or connect an MCP client to `/mcp` (Streamable HTTP) with the same Bearer key: its tools wrap these " +
        "operations and `search_operations` / `call_operation` reach every other one. A key can be limited " +
        "to what an agent needs, with a spend cap: see the Keys section of the guide.",
    ].join("\n"),
    "## API reference",
    [
      "- [Overview, key scopes and guide](/docs/api.md): errors, limits, keys, top-ups, servers",
      ...tags.map((tag) => `- [${tag.name}](${tag.href}.md): ${cell(firstSentence(tag.description))}`),
    ].join("\n"),
    "## Machine-readable",
    [
      "- [OpenAPI 3.1 document](/api/v1/openapi.json): every operation, schema and error code",
      "- MCP server: `/mcp` (POST, JSON-RPC over Streamable HTTP, `Authorization: Bearer <key>`)",
    ].join("\n"),
    "## Optional",
    "- [HTML reference](/docs/api): the same pages for people",
  ].join("\n\n");
}

type MarkdownPages = { llms: string; overview: string; tags: ReadonlyMap<string, string> };
let pages: MarkdownPages | undefined;

/** Every Markdown page, made once per process (the document does not change while it runs). */
export function markdownPages(): MarkdownPages {
  if (pages) return pages;
  const reference = apiReference();
  const tags = new Map<string, string>();
  for (const tag of reference.tags) {
    const slug = tag.href.replace("/docs/api/", "");
    tags.set(slug, tagMarkdown(slug, reference) ?? "");
  }
  pages = { llms: llmsText(reference), overview: overviewMarkdown(reference), tags };
  return pages;
}

/** A Markdown page as served: UTF-8 text, cacheable for five minutes like the OpenAPI document. */
export const markdownResponse = (text: string, contentType = "text/markdown") =>
  new Response(text, {
    headers: { "content-type": `${contentType}; charset=utf-8`, "cache-control": "public, max-age=300" },
  });
