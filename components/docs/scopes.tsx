import { MethodLabel, type ReferenceOperation } from "@/components/docs/reference";
import { TEXT_STYLES } from "@/components/ui/alert";
import { SCOPE_GROUPS, SCOPES } from "@/lib/api/scopes";
import { API_KEY_SCOPES } from "@/lib/db/types";

/**
 * The key scopes, by group: what each allows, what it brings along, and the operations that need it (read
 * from the document's `x-scope`, so the list cannot drift from what the routes enforce).
 */
export function ScopeTable({
  operations,
  hrefOf,
}: {
  operations: ReferenceOperation[];
  hrefOf: (entry: ReferenceOperation) => string;
}) {
  return (
    <table className="mt-3 w-full text-left text-sm" aria-label="Key scopes">
      <thead>
        <tr>
          {["Scope", "Allows", "Operations"].map((heading) => (
            <th key={heading} scope="col" className="py-2">
              {heading}
            </th>
          ))}
        </tr>
      </thead>
      {SCOPE_GROUPS.map((group) => (
        <tbody key={group.id}>
          <tr>
            <th colSpan={3} className="pt-4 text-xs uppercase tracking-wide">
              {group.title}
            </th>
          </tr>
          {API_KEY_SCOPES.filter((scope) => SCOPES[scope].group === group.id).map((scope) => {
            const facts: { summary: string; needs: readonly string[]; dangerous?: true } = SCOPES[scope];
            return (
              <tr
                key={scope}
                id={`scope-${scope}`}
                className="border-t border-zinc-200 align-top dark:border-zinc-800"
              >
                <td className="py-2 pr-3 font-mono text-xs">{scope}</td>
                <td className="pr-3">
                  {facts.summary}.{facts.dangerous ? " Sensitive." : ""}
                  {facts.needs.length > 0 && (
                    <span className={`block ${TEXT_STYLES.muted}`}>
                      Brings along {facts.needs.join(", ")}.
                    </span>
                  )}
                </td>
                <td>
                  <ul>
                    {operations
                      .filter(({ operation }) => operation["x-scope"] === scope)
                      .map((entry) => (
                        <li key={`${entry.method} ${entry.path}`}>
                          <a className="hover:underline" href={hrefOf(entry)}>
                            <MethodLabel method={entry.method} />{" "}
                            <span className="font-mono text-xs">{entry.path}</span>
                          </a>
                        </li>
                      ))}
                  </ul>
                </td>
              </tr>
            );
          })}
        </tbody>
      ))}
    </table>
  );
}
