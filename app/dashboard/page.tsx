import type { Metadata } from "next";
import Link from "next/link";
import { SignOutButton } from "@/components/account/sign-out-button";
import { formatUsd } from "@/lib/money/cents";
import { signedInAccount } from "@/lib/session/page-api";

export const metadata: Metadata = { title: "Overview" };

/** The signed-in overview. Without a session, or once the API refuses its key, it sends the user to sign-in. */
export default async function DashboardPage() {
  const account = await signedInAccount();
  return (
    <section className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Overview</h1>
        <nav aria-label="Account" className="flex flex-wrap items-center gap-4 text-sm">
          <Link href="/dashboard/keys" className="underline">
            API keys
          </Link>
          <Link href="/dashboard/security" className="underline">
            Security
          </Link>
          <SignOutButton />
        </nav>
      </div>
      <dl className="grid gap-4 sm:grid-cols-3">
        <div className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
          <dt className="text-sm text-zinc-600 dark:text-zinc-400">Balance</dt>
          <dd data-testid="balance" className="text-2xl font-semibold">
            {formatUsd(Math.round(account.balance_usd * 100))}
          </dd>
        </div>
        <div className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
          <dt className="text-sm text-zinc-600 dark:text-zinc-400">Servers</dt>
          <dd className="text-2xl font-semibold">{account.servers}</dd>
        </div>
        <div className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
          <dt className="text-sm text-zinc-600 dark:text-zinc-400">Two-factor sign-in</dt>
          <dd className="text-2xl font-semibold">{account.totp_enabled ? "On" : "Off"}</dd>
        </div>
      </dl>
    </section>
  );
}
