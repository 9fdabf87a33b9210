/** Renders a JSON schema from the OpenAPI document as a readable field table (nested objects indented). */
type JsonSchema = {
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

function rows(raw: JsonSchema, registry: SchemaRegistry, prefix: string, depth: number): React.ReactNode[] {
  const schema = resolve(raw, registry);
  const target = schema.type === "array" && schema.items ? resolve(schema.items, registry) : schema;
  if (!target.properties || depth > 3) return [];
  return Object.entries(target.properties).flatMap(([name, child]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const resolved = resolve(child, registry);
    return [
      <tr key={path} className="border-t border-zinc-200 align-top dark:border-zinc-800">
        <td className="py-1.5 pr-4 font-mono text-xs">
          {path}
          {target.required?.includes(name) ? "" : "?"}
        </td>
        <td className="py-1.5 pr-4 font-mono text-xs text-zinc-600 dark:text-zinc-400">
          {typeLabel(child, registry)}
        </td>
        <td className="py-1.5 text-sm">{resolved.description ?? child.description ?? ""}</td>
      </tr>,
      ...rows(child, registry, path, depth + 1),
    ];
  });
}

export function SchemaFields({ schema, registry }: { schema: JsonSchema; registry: SchemaRegistry }) {
  const body = rows(schema, registry, "", 0);
  if (body.length === 0)
    return <p className="text-sm text-zinc-600 dark:text-zinc-400">{typeLabel(schema, registry)}</p>;
  return (
    <table className="w-full text-left">
      <thead>
        <tr className="text-xs uppercase tracking-wide text-zinc-500">
          <th className="pb-1 pr-4 font-medium">Field</th>
          <th className="pb-1 pr-4 font-medium">Type</th>
          <th className="pb-1 font-medium">Notes</th>
        </tr>
      </thead>
      <tbody>{body}</tbody>
    </table>
  );
}
