import type { Metadata } from "next";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { INPUT_STYLE } from "@/components/ui/field";
import { searchAccounts } from "@/lib/operator/accounts";
import { requireOperator } from "@/lib/operator/page-session";

export const metadata: Metadata = { title: "Accounts" };

/** Finds accounts by id, a server's address, a deposit address or a transaction id. */
export default async function AccountsPage(props: { searchParams: Promise<{ q?: string }> }) {
  await requireOperator();
  const q = ((await props.searchParams).q ?? "").slice(0, 200);
  const hits = q ? await searchAccounts(q) : [];
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Accounts and servers</h1>
      <search>
        <form method="get" className="flex max-w-2xl items-end gap-2">
          <label htmlFor="q" className="block flex-1 text-sm font-medium">
            Account id, server address, deposit address or transaction id
            <input id="q" name="q" defaultValue={q} required className={INPUT_STYLE} />
          </label>
          <Button type="submit" variant="primary" worksWithoutScript>
            Find
          </Button>
        </form>
      </search>
      {q && hits.length === 0 && <p>No account matches {q}.</p>}
      {hits.length > 0 && (
        <ul className="space-y-1" aria-label="Accounts found">
          {hits.map((hit) => (
            <li key={`${hit.account_id}:${hit.matched}`}>
              <Link prefetch={false} href={`/operator/accounts/${hit.account_id}`} className="underline">
                Account {hit.account_id}
              </Link>{" "}
              : {hit.matched}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
