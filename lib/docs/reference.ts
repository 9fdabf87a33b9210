/**
 * The API reference's content, read from the OpenAPI document: every operation by tag, each tag with its
 * address, and a schema's fields as rows. The pages at /docs/api render it as HTML (components/docs/) and
 * lib/docs/markdown.ts as Markdown, so both say the same.
 */
import { buildOpenApiDocument } from "@/lib/api/openapi/document";

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  description?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
};

export type SchemaRegistry = Record<string, JsonSchema>;

export type Operation = {
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
  security?: unknown[];
  /** The key scope the operation needs (`none`: any key); absent when it takes no key. */
  "x-scope"?: string;
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema: object }> };
  responses?: Record<string, { description: string; content?: Record<string, { schema: object }> }>;
};

export type ReferenceOperation = { path: string; method: string; operation: Operation };

/** A tag's page address: `/docs/api/` and its name in lower case, words joined by hyphens. */
export const tagSlug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** The document, its operations in order, and its tags, each with the address of its page. */
export function apiReference() {
  const document = buildOpenApiDocument();
  const registry = (document.components?.schemas ?? {}) as SchemaRegistry;
  const operations: ReferenceOperation[] = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, operation]) => ({
      path,
      method,
      operation,
    })),
  );
  const tags = (document.tags ?? []).map((tag) => ({
    name: tag.name,
    description: tag.description,
    href: `/docs/api/${tagSlug(tag.name)}`,
    operations: operations.filter(({ operation }) => operation.tags?.includes(tag.name)),
  }));
  return { document, registry, operations, tags };
}

function resolve(schema: JsonSchema, registry: SchemaRegistry): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.split("/").at(-1) ?? "";
  return registry[name] ?? {};
}

export function typeLabel(raw: JsonSchema, registry: SchemaRegistry): string {
  const schema = resolve(raw, registry);
  const refName = raw.$ref?.split("/").at(-1);
  if (schema.anyOf) return schema.anyOf.map((s) => typeLabel(s, registry)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
  if (type === "array" && schema.items) return `${typeLabel(schema.items, registry)}[]`;
  if (type === "object" && refName) return refName;
  const bounds = [
    schema.minimum !== undefined ? `≥ ${schema.minimum}` : "",
    schema.maximum !== undefined ? `≤ ${schema.maximum}` : "",
    schema.minLength !== undefined ? `min length ${schema.minLength}` : "",
    schema.maxLength !== undefined ? `max length ${schema.maxLength}` : "",
  ].filter(Boolean);
  const base = schema.format ? `${type} (${schema.format})` : (type ?? "any");
  return bounds.length ? `${base}, ${bounds.join(", ")}` : base;
}

/** One field of a schema: its dotted path, whether it may be absent, its type and its notes. */
export type FieldRow = { path: string; optional: boolean; type: string; description: string };

/** A schema's fields, nested objects (and arrays of them) to three levels below the top. */
export function schemaFieldRows(
  raw: JsonSchema,
  registry: SchemaRegistry,
  prefix = "",
  depth = 0,
): FieldRow[] {
  const schema = resolve(raw, registry);
  const target = schema.type === "array" && schema.items ? resolve(schema.items, registry) : schema;
  if (!target.properties || depth > 3) return [];
  return Object.entries(target.properties).flatMap(([name, child]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const resolved = resolve(child, registry);
    return [
      {
        path,
        optional: !target.required?.includes(name),
        type: typeLabel(child, registry),
        description: resolved.description ?? child.description ?? "",
      },
      ...schemaFieldRows(child, registry, path, depth + 1),
    ];
  });
}
