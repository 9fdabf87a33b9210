import type { Metadata } from "next";
import Link from "next/link";
import { ReasonForm } from "@/components/operator/reason-form";
import { TEXT_STYLES } from "@/components/ui/alert";
import { Panel } from "@/components/ui/panel";
import { db } from "@/lib/db/client";
import { type PendingAdjustment, pendingAdjustments } from "@/lib/operator/adjustments";
import { operatorSettings } from "@/lib/operator/config";
import { listOperators } from "@/lib/operator/operators";
import { mayDo, requireOperator } from "@/lib/operator/page-session";
import { formatApiUsd } from "@/lib/util/cents";

export const metadata: Metadata = { title: "Operators" };

const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "—");

/**
 * The operators (admins): who may sign in, deactivating one (their sessions end at once), and the adjustments
 * past their requester's daily cap, which another admin approves or refuses here.
 */
export default async function OperatorsPage() {
  const { operator, csrfToken } = await requireOperator();
  if (!mayDo(operator, "manage_operators")) {
    return (
      <section className="space-y-4">
        <h1 className="text-2xl font-semibold">Operators</h1>
        <p>This page is for admins; your role is {operator.role}.</p>
      </section>
    );
  }
  const [everyone, waiting] = await Promise.all([listOperators(await db()), pendingAdjustments()]);
  const capUsd = operatorSettings().adjustmentDailyCapCents / 100;
  return (
    <section className="space-y-8">
      <h1 className="text-2xl font-semibold">Operators</h1>

      <Panel id="approvals" title="Adjustments waiting for a second admin">
        <p className="text-sm">
          An operator&apos;s adjustments may move {formatApiUsd(capUsd)} in 24 hours, credits and debits alike
          (OPERATOR_ADJUSTMENT_DAILY_CAP_USD); past it an adjustment waits here until another admin decides
          it.
        </p>
        {waiting.length === 0 && <p className={`text-sm ${TEXT_STYLES.muted}`}>None waiting.</p>}
        <ul className="space-y-4">
          {waiting.map((approval) => (
            <Approval
              key={approval.id}
              approval={approval}
              csrfToken={csrfToken}
              own={approval.requested_by === operator.name}
            />
          ))}
        </ul>
      </Panel>

      <Panel id="operators" title="Who may sign in">
        <ul className="space-y-4">
          {everyone.map((listed) => (
            <li
              key={listed.name}
              data-testid={`operator-${listed.name}`}
              className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-800"
            >
              <p className="text-sm">
                <span className="font-medium">{listed.name}</span> · {listed.role} · added{" "}
                {when(listed.created_at)} · last request {when(listed.last_seen_at)} · {listed.live_sessions}{" "}
                live session(s) · adjusted {formatApiUsd(listed.adjusted_24h_usd)} in 24 h
                {listed.disabled_at && (
                  <span data-testid="operator-disabled"> · deactivated {when(listed.disabled_at)}</span>
                )}
              </p>
              {!listed.disabled_at && listed.name !== operator.name && (
                <ReasonForm
                  csrfToken={csrfToken}
                  method="POST"
                  path={`/operators/${listed.name}/deactivation`}
                  label={`Why ${listed.name} is deactivated (audit log; their sessions end at once)`}
                  submit={`Deactivate ${listed.name}`}
                  success="Deactivated."
                  danger
                />
              )}
            </li>
          ))}
        </ul>
      </Panel>
    </section>
  );
}

const DECISIONS = [
  {
    decision: "approve",
    label: "Why it is approved (audit log)",
    submit: "Approve and post",
    success: "Approved and posted.",
  },
  { decision: "refuse", label: "Why it is refused (audit log)", submit: "Refuse", success: "Refused." },
] as const;

function Approval(props: { approval: PendingAdjustment; csrfToken: string; own: boolean }) {
  const { approval } = props;
  const path = `/adjustment-approvals/${approval.id}`;
  return (
    <li
      data-testid={`approval-${approval.id}`}
      className="space-y-2 rounded border border-amber-300 p-3 dark:border-amber-900"
    >
      <p className="text-sm">
        {approval.amount_usd > 0 ? "Credit" : "Debit"} of {formatApiUsd(Math.abs(approval.amount_usd))} to{" "}
        <Link prefetch={false} href={`/operator/accounts/${approval.account_id}`} className="underline">
          account {approval.account_id}
        </Link>{" "}
        asked by {approval.requested_by} at {when(approval.requested_at)}: {approval.reason}
        {approval.payment && ` (settles ${approval.payment})`}
      </p>
      {props.own ? (
        <p className={`text-sm ${TEXT_STYLES.muted}`}>You asked for it: another admin decides it.</p>
      ) : (
        <div className="grid gap-4 md:grid-cols-2">
          {DECISIONS.map((decision) => (
            <ReasonForm
              key={decision.decision}
              csrfToken={props.csrfToken}
              method="POST"
              path={path}
              field="note"
              extra={{ decision: decision.decision }}
              label={decision.label}
              submit={decision.submit}
              success={decision.success}
              danger={decision.decision === "refuse"}
            />
          ))}
        </div>
      )}
    </li>
  );
}
