import type { Metadata } from "next";
import Link from "next/link";
import { TEXT_STYLES } from "@/components/ui/alert";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { formatApiUsd } from "@/lib/util/cents";

export const metadata: Metadata = { title: "Overview" };

/** The signed-in overview: balance, servers, recent top-ups and the next useful step. */
export default async function DashboardPage() {
  const api = await signedInApi();
  // The three reads are independent: one round trip's wait, not three.
  const [accountResult, serverList, topupList] = await Promise.all([
    api.GET("/account"),
    api.GET("/servers"),
    api.GET("/topups"),
  ]);
  const account = pageData(accountResult);
  const servers = pageData(serverList).servers.filter((server) => server.status !== "terminated");
  const topups = pageData(topupList).topups.slice(0, 5);
  const nextStep =
    account.balance_usd < 1
      ? { href: "/dashboard/topups", text: "Top up your balance to order a server." }
      : servers.length === 0
        ? { href: "/dashboard/order", text: "Order your first server." }
        : !account.totp_enabled
          ? { href: "/dashboard/security", text: "Turn on two-factor sign-in." }
          : null;

  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Overview</h1>
      {account.suspension && (
        <p
          role="alert"
          data-testid="account-suspension"
          className="rounded border border-amber-300 bg-amber-50 p-3 text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
        >
          This account is suspended by the operator: {account.suspension.reason}. Its servers are stopped and
          no new server can be ordered until the suspension is lifted.
        </p>
      )}
      <dl className="grid gap-4 sm:grid-cols-3">
        <div className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
          <dt className={`text-sm ${TEXT_STYLES.muted}`}>Balance</dt>
          <dd data-testid="balance" className="text-2xl font-semibold">
            {formatApiUsd(account.balance_usd)}
          </dd>
        </div>
        <div className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
          <dt className={`text-sm ${TEXT_STYLES.muted}`}>Servers</dt>
          <dd className="text-2xl font-semibold">{account.servers}</dd>
        </div>
        <div className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
          <dt className={`text-sm ${TEXT_STYLES.muted}`}>Two-factor sign-in</dt>
          <dd className="text-2xl font-semibold">{account.totp_enabled ? "On" : "Off"}</dd>
        </div>
      </dl>
      {nextStep && (
        <p className="rounded border border-sky-300 bg-sky-50 p-3 text-sky-950 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100">
          Next:{" "}
          <Link prefetch={false} href={nextStep.href} className="font-medium underline">
            {nextStep.text}
          </Link>
        </p>
      )}
      <div className="grid gap-6 md:grid-cols-2">
        <div className="space-y-2">
          <h2 className="text-lg font-semibold">Servers</h2>
          {servers.length === 0 ? (
            <p className={`text-sm ${TEXT_STYLES.muted}`}>No servers yet.</p>
          ) : (
            <ul className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800">
              {servers.slice(0, 5).map((server) => (
                <li key={server.id} className="flex justify-between gap-2 py-2">
                  <Link prefetch={false} href={`/dashboard/servers/${server.id}`} className="underline">
                    {server.hostname}
                  </Link>
                  <span>{server.status}</span>
                </li>
              ))}
            </ul>
          )}
          <Link prefetch={false} href="/dashboard/servers" className="text-sm underline">
            All servers
          </Link>
        </div>
        <div className="space-y-2">
          <h2 className="text-lg font-semibold">Recent top-ups</h2>
          {topups.length === 0 ? (
            <p className={`text-sm ${TEXT_STYLES.muted}`}>No top-ups yet.</p>
          ) : (
            <ul className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800">
              {topups.map((topup) => (
                <li key={topup.ref} className="flex justify-between gap-2 py-2">
                  <Link prefetch={false} href={`/dashboard/topups/${topup.ref}`} className="underline">
                    {formatApiUsd(topup.amount_usd)} in {topup.coin}
                  </Link>
                  <span>{topup.status}</span>
                </li>
              ))}
            </ul>
          )}
          <Link prefetch={false} href="/dashboard/topups" className="text-sm underline">
            Top up
          </Link>
        </div>
      </div>
    </section>
  );
}
