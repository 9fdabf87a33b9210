import type { Metadata } from "next";
import Link from "next/link";
import { ReasonForm } from "@/components/operator/reason-form";
import { TEXT_STYLES } from "@/components/ui/alert";
import { mayDo, requireOperator } from "@/lib/operator/page-session";
import { type FlaggedPayment, flaggedPayments } from "@/lib/operator/payments";

export const metadata: Metadata = { title: "Payments" };

const WHAT: Record<FlaggedPayment["flags"][number], string> = {
  reorged: "credited, then its block left the best chain (the credit stands)",
  dropped: "left the mempool unmined, never credited",
  late: "arrived after its quote ended (credited at the lower rate)",
  overpaid: "paid more than asked (the excess credited)",
  settlement_unknown: "x402 settlement whose outcome was never recorded: check the chain",
};

/** Every flagged payment with its facts and what can be done: mark reviewed, or adjust the account. */
export default async function PaymentsPage(props: { searchParams: Promise<{ state?: string }> }) {
  const { operator, csrfToken } = await requireOperator();
  const state = (await props.searchParams).state === "reviewed" ? "reviewed" : "attention";
  const payments = await flaggedPayments(state);
  const canReview = mayDo(operator, "review_payment");
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">
        {state === "attention" ? "Payments needing attention" : "Payments reviewed"}
      </h1>
      <p className="text-sm">
        {state === "attention" ? (
          <Link prefetch={false} href="/operator/payments?state=reviewed" className="underline">
            Show the reviewed ones
          </Link>
        ) : (
          <Link prefetch={false} href="/operator/payments" className="underline">
            Show those needing attention
          </Link>
        )}
      </p>
      {payments.length === 0 && <p data-testid="no-payments">Nothing here.</p>}
      <ul className="space-y-4">
        {payments.map((payment) => (
          <li
            key={payment.id}
            data-testid={`payment-${payment.id}`}
            className="space-y-2 rounded border border-zinc-200 p-4 dark:border-zinc-800"
          >
            <p className="font-medium">
              {payment.flags.join(", ")}: {payment.flags.map((flag) => WHAT[flag]).join("; ")}
            </p>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 text-sm">
              <dt>Coin</dt>
              <dd>
                {payment.coin} on {payment.network}
              </dd>
              <dt>Transaction</dt>
              <dd className="break-all font-mono" data-testid="payment-tx">
                {payment.tx_hash ?? "none recorded"}
              </dd>
              {payment.amount && (
                <>
                  <dt>Amount</dt>
                  <dd>{payment.amount}</dd>
                </>
              )}
              {payment.confirmations !== null && (
                <>
                  <dt>Confirmations</dt>
                  <dd>
                    {payment.confirmations} of {payment.confirmations_required}
                  </dd>
                </>
              )}
              <dt>Credited</dt>
              <dd>{payment.credited_usd === null ? "nothing" : `${payment.credited_usd.toFixed(2)} USD`}</dd>
              <dt>Seen</dt>
              <dd>{payment.seen_at.slice(0, 19).replace("T", " ")} UTC</dd>
              {payment.topup && (
                <>
                  <dt>Top-up</dt>
                  <dd>
                    {payment.topup.ref} ({payment.topup.status}, {payment.topup.amount_usd.toFixed(2)} USD
                    asked)
                  </dd>
                </>
              )}
              {payment.payer && (
                <>
                  <dt>Payer</dt>
                  <dd className="break-all font-mono">{payment.payer}</dd>
                </>
              )}
              <dt>Account</dt>
              <dd>
                <Link
                  prefetch={false}
                  href={`/operator/accounts/${payment.account_id}`}
                  className="underline"
                >
                  {payment.account_id}
                </Link>{" "}
                <span className={TEXT_STYLES.muted}>(post an adjustment there)</span>
              </dd>
            </dl>
            {payment.review ? (
              <p className="text-sm">
                Reviewed by {payment.review.by} at {payment.review.at.slice(0, 16).replace("T", " ")} UTC:{" "}
                {payment.review.note}
              </p>
            ) : (
              canReview && (
                <ReasonForm
                  csrfToken={csrfToken}
                  method="POST"
                  path={`/payments/${payment.id.replace(":", "/")}/review`}
                  field="note"
                  label="What was found and done"
                  submit="Mark reviewed"
                  success="Marked reviewed."
                />
              )
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
