import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AdjustmentForm } from "@/components/operator/adjustment-form";
import { ReasonForm } from "@/components/operator/reason-form";
import { TEXT_STYLES } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";
import { ApiError } from "@/lib/api/errors";
import { type AccountDetail, accountDetail } from "@/lib/operator/accounts";
import { mayDo, requireOperator } from "@/lib/operator/page-session";
import { formatApiUsd } from "@/lib/util/cents";

export const metadata: Metadata = { title: "Account" };

const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "—");

/** One account: its money, servers, sessions and flags, and what an operator can do about it. */
export default async function AccountPage(props: { params: Promise<{ id: string }> }) {
  const { operator, csrfToken } = await requireOperator();
  const { id } = await props.params;
  if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) notFound();
  let account: AccountDetail;
  try {
    account = await accountDetail(Number(id));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) notFound();
    throw error;
  }
  const canSuspend = mayDo(operator, "suspend");
  const canAdjust = mayDo(operator, "adjust_ledger");
  const canOpenMail = mayDo(operator, "mail_policy");
  return (
    <section className="space-y-8">
      <header className="space-y-2">
        <h1 className="text-2xl font-semibold">Account {account.id}</h1>
        <p className="text-sm">
          Balance <span data-testid="account-balance">{formatApiUsd(account.balance_usd)}</span> · since{" "}
          {when(account.created_at)} · two-factor {account.totp_enabled ? "on" : "off"}
        </p>
        {account.suspension && (
          <p data-testid="account-suspension" className="text-sm text-amber-800 dark:text-amber-300">
            Suspended by {account.suspension.by} since {when(account.suspension.since)}:{" "}
            {account.suspension.reason}
            {account.suspension.pauses_period ? " (paid periods wait)" : " (paid periods run on)"}
          </p>
        )}
      </header>

      {canSuspend && (
        <Panel
          id="account-suspension"
          title={account.suspension ? "Lift the account's suspension" : "Suspend the account"}
        >
          {account.suspension ? (
            <ReasonForm
              csrfToken={csrfToken}
              method="DELETE"
              path={`/accounts/${account.id}/suspension`}
              label="Why it is lifted (audit log)"
              submit="Lift account suspension"
              success="Lifted."
            />
          ) : (
            <ReasonForm
              csrfToken={csrfToken}
              method="POST"
              path={`/accounts/${account.id}/suspension`}
              label="Reason the customer reads (every server is suspended, no new orders)"
              submit="Suspend account"
              success="Suspended."
              danger
              pauseChoice
            />
          )}
        </Panel>
      )}

      <Panel id="servers" title="Servers">
        {account.servers.length === 0 && <p className="text-sm">No servers.</p>}
        <ul className="space-y-4">
          {account.servers.map((server) => (
            <li
              key={server.id}
              data-testid={`server-${server.id}`}
              className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800"
            >
              <p className="text-sm">
                <span className="font-medium">
                  {server.id} {server.hostname}
                </span>{" "}
                · <span data-testid="server-status">{server.status}</span> · {server.plan} in{" "}
                {server.location}
                {server.hypervisor && ` on ${server.hypervisor}`} · {server.ip ?? "no address"}
                {server.ipv6_prefix && ` · ${server.ipv6_prefix}`} · paid until {when(server.expires_at)} ·
                mail (port 25): <span data-testid="server-smtp">{server.smtp}</span>
              </p>
              {server.status_reason && (
                <p className={`text-sm ${TEXT_STYLES.muted}`} data-testid="server-reason">
                  {server.status_reason}
                </p>
              )}
              {canSuspend &&
                server.status !== "terminated" &&
                (server.suspension_id !== null ? (
                  <ReasonForm
                    csrfToken={csrfToken}
                    method="DELETE"
                    path={`/servers/${server.id}/suspension`}
                    label="Why it is lifted (audit log)"
                    submit="Lift suspension"
                    success="Lifted."
                  />
                ) : (
                  <ReasonForm
                    csrfToken={csrfToken}
                    method="POST"
                    path={`/servers/${server.id}/suspension`}
                    label="Reason the customer reads"
                    submit="Suspend server"
                    success="Suspended."
                    danger
                    pauseChoice
                  />
                ))}
              {canOpenMail && server.status !== "terminated" && (
                <ReasonForm
                  csrfToken={csrfToken}
                  method="PUT"
                  path={`/servers/${server.id}/smtp`}
                  extra={{ open: server.smtp !== "open" }}
                  label="Why outbound mail is opened or blocked (audit log)"
                  submit={server.smtp === "open" ? "Block outbound mail" : "Open outbound mail"}
                  success={server.smtp === "open" ? "Blocked." : "Opened."}
                />
              )}
            </li>
          ))}
        </ul>
      </Panel>

      {canAdjust && (
        <Panel id="adjust" title="Ledger adjustment">
          <AdjustmentForm
            csrfToken={csrfToken}
            accountId={account.id}
            payments={account.flagged_payments.filter((p) => !p.review).map((p) => p.id)}
          />
        </Panel>
      )}

      {account.adjustment_approvals.length > 0 && (
        <Panel id="approvals" title="Adjustments past their operator's daily cap">
          <ul className="space-y-1 text-sm">
            {account.adjustment_approvals.map((approval) => (
              <li key={approval.id} data-testid="adjustment-approval">
                {formatApiUsd(approval.amount_usd)} asked by {approval.requested_by} at{" "}
                {when(approval.requested_at)}: {approval.reason} ·{" "}
                {approval.state === "pending"
                  ? "waiting for another admin (Operators)"
                  : `${approval.state} by ${approval.decided_by} at ${when(approval.decided_at)}`}
              </li>
            ))}
          </ul>
        </Panel>
      )}

      <Panel id="ledger" title="Ledger (latest 100)">
        <table className="w-full text-left text-sm" aria-label="Ledger">
          <thead>
            <tr>
              <th>When</th>
              <th>Kind</th>
              <th className="text-right">Amount</th>
              <th className="text-right">Balance after</th>
              <th>Reference / reason</th>
            </tr>
          </thead>
          <tbody>
            {account.ledger.map((entry) => (
              <tr key={entry.id} data-testid="ledger-entry">
                <td className="whitespace-nowrap">{when(entry.at)}</td>
                <td>{entry.kind}</td>
                <td className="text-right">{formatApiUsd(entry.amount_usd)}</td>
                <td className="text-right">{formatApiUsd(entry.balance_after_usd)}</td>
                <td className="break-all">{entry.reason ?? entry.reference}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>

      <Panel id="topups" title="Top-ups">
        <ul className="space-y-2 text-sm">
          {account.topups.map((topup) => (
            <li key={topup.ref}>
              {topup.ref} · {topup.status} · {topup.coin} ({topup.method}) · {formatApiUsd(topup.amount_usd)}{" "}
              asked, {formatApiUsd(topup.credited_usd)} credited ·{" "}
              <span className="break-all font-mono">{topup.deposit_address}</span>
              {topup.payments.map((payment) => (
                <span key={payment.tx_hash} className={`block break-all font-mono ${TEXT_STYLES.muted}`}>
                  {payment.tx_hash} {payment.amount} ({payment.confirmations} conf.)
                </span>
              ))}
            </li>
          ))}
        </ul>
      </Panel>

      {account.flagged_payments.length > 0 && (
        <Panel id="flagged" title="Flagged payments">
          <ul className="space-y-1 text-sm">
            {account.flagged_payments.map((payment) => (
              <li key={payment.id}>
                {payment.id}: {payment.flags.join(", ")} · {payment.tx_hash}{" "}
                {payment.review ? `(reviewed by ${payment.review.by})` : "(needs attention)"}
              </li>
            ))}
          </ul>
          <Link prefetch={false} href="/operator/payments" className="text-sm underline">
            All payments needing attention
          </Link>
        </Panel>
      )}

      <Panel id="sessions" title="Keys and dashboard sessions">
        <ul className="space-y-1 text-sm">
          {account.sessions.map((session) => (
            <li key={session.id}>
              {session.kind === "session" ? "Dashboard session" : "API key"} {session.id} · made{" "}
              {when(session.created_at)} · last used {when(session.last_used_at)}
              {session.expires_at && ` · expires ${when(session.expires_at)}`}
            </li>
          ))}
        </ul>
      </Panel>

      {account.consoles.length > 0 && (
        <Panel id="consoles" title="Recent consoles">
          <ul className="space-y-2 text-sm">
            {account.consoles.map((console) => (
              <li key={console.id} data-testid={`console-${console.id}`} className="space-y-2">
                <p>
                  Server {console.server_id} · {when(console.requested_at)} from {console.from}
                  {console.closed_at
                    ? ` · closed ${when(console.closed_at)} (${console.close_reason ?? "closed"})`
                    : console.opened_at
                      ? " · open"
                      : " · ticket not used yet"}
                </p>
                {canSuspend && !console.closed_at && (
                  <ReasonForm
                    csrfToken={csrfToken}
                    method="DELETE"
                    path={`/consoles/${console.id}`}
                    label="Why it is closed (audit log)"
                    submit="Close console"
                    success="Closed."
                    danger
                  />
                )}
              </li>
            ))}
          </ul>
        </Panel>
      )}
    </section>
  );
}
