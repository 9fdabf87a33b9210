/** Renders a JSON schema from the OpenAPI document as a readable field table (nested objects indented). */
import { type JsonSchema, type SchemaRegistry, schemaFieldRows, typeLabel } from "@/lib/docs/reference";

export type { SchemaRegistry };

export function SchemaFields({ schema, registry }: { schema: JsonSchema; registry: SchemaRegistry }) {
  const rows = schemaFieldRows(schema, registry);
  if (rows.length === 0)
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
      <tbody>
        {rows.map((row) => (
          <tr key={row.path} className="border-t border-zinc-200 align-top dark:border-zinc-800">
            <td className="py-1.5 pr-4 font-mono text-xs">
              {row.path}
              {row.optional ? "?" : ""}
            </td>
            <td className="py-1.5 pr-4 font-mono text-xs text-zinc-600 dark:text-zinc-400">{row.type}</td>
            <td className="py-1.5 text-sm">{row.description}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
