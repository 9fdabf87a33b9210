import type { Metadata } from "next";
import Link from "next/link";
import { listAudit } from "@/lib/operator/audit";
import { mayDo, requireOperator } from "@/lib/operator/page-session";

export const metadata: Metadata = { title: "Audit log" };

/** Every operator action, newest first: who, what, on what, why, from where, when. Admins only. */
export default async function AuditPage(props: { searchParams: Promise<{ before?: string }> }) {
  const { operator } = await requireOperator();
  if (!mayDo(operator, "read_audit")) {
    return (
      <section className="space-y-4">
        <h1 className="text-2xl font-semibold">Audit log</h1>
        <p>The audit log is for admins; your role is {operator.role}.</p>
      </section>
    );
  }
  const before = (await props.searchParams).before;
  const page = await listAudit({
    beforeId: before && /^\d{1,15}$/.test(before) ? Number(before) : undefined,
  });
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Audit log</h1>
      <table className="w-full text-left text-sm" aria-label="Operator actions">
        <thead>
          <tr>
            <th>When (UTC)</th>
            <th>Who</th>
            <th>What</th>
            <th>On</th>
            <th>Why</th>
            <th>From</th>
          </tr>
        </thead>
        <tbody>
          {page.entries.map((entry) => (
            <tr key={entry.id} data-testid="audit-entry" className="align-top">
              <td className="whitespace-nowrap">{entry.at.slice(0, 19).replace("T", " ")}</td>
              <td>{entry.operator}</td>
              <td>{entry.action}</td>
              <td>{entry.target}</td>
              <td>
                {entry.reason}
                {entry.detail && (
                  <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                    {JSON.stringify(entry.detail)}
                  </span>
                )}
              </td>
              <td>{entry.client}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.nextBefore && (
        <Link prefetch={false} href={`/operator/audit?before=${page.nextBefore}`} className="underline">
          Older entries
        </Link>
      )}
    </section>
  );
}
