"use client";

import { useMutation, useQuery, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Alert, TEXT_STYLES } from "@/components/ui/alert";
import { CopyButton } from "@/components/ui/copy-button";
import { useHydrated } from "@/components/ui/use-hydrated";
import { accountQuery } from "@/lib/dashboard/queries/account";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import { topupQuery } from "@/lib/dashboard/queries/topups";
import type { Topup } from "@/lib/dashboard/queries/types";
import { X402_COIN } from "@/lib/rails/registry";
import {
  creditedPartText,
  decimalShortfall,
  depositPhase,
  formatRemaining,
  halfOf,
  networkLabel,
} from "@/lib/topups/view";
import { formatApiUsd } from "@/lib/util/cents";
import { StatusBadge } from "./status-badge";

/** Seconds left until `expiresAt`, ticking once a second. */
function Countdown({ expiresAt }: { expiresAt: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const left = new Date(expiresAt).getTime() - now;
  return (
    <p className={`text-sm ${left < 5 * 60_000 ? "font-semibold text-amber-800 dark:text-amber-300" : ""}`}>
      {left > 0 ? (
        <>
          Expires in <span role="timer">{formatRemaining(left)}</span>: pay the exact amount before then.
        </>
      ) : (
        "The quote has run out; a payment already on its way is still checked."
      )}
    </p>
  );
}

/** Why a Monero payment waits: received outputs cannot be spent for 10 blocks, so they count only then. */
const MONERO_LOCK =
  " Monero locks every received payment for 10 blocks (about 20 minutes) before it can be spent, so it is credited once unlocked.";

/** What the top-up is doing now, in words, with what to do next. */
function StatusPanel({ topup }: { topup: Topup }) {
  const { phase, missing } = depositPhase(topup);
  const { data: account } = useQuery({ ...accountQuery(), enabled: phase === "completed" });
  const coin = topup.deposit_coin;
  // The least-confirmed payment is the one still holding the credit back (a dropped one never will).
  const confirmations = Math.min(
    ...topup.payments.filter((payment) => !payment.dropped).map((payment) => payment.confirmations),
    topup.confirmations_required,
  );
  const [title, body, tone] = (() => {
    switch (phase) {
      case "waiting":
        return [
          "Waiting for payment",
          `Send exactly ${topup.deposit_amount} ${coin} to the address below. This page updates by itself.`,
          "amber",
        ];
      case "partial":
        return [
          "Partially paid",
          `Received ${topup.received_amount} ${coin}${
            topup.credited_usd > 0
              ? `, and ${formatApiUsd(topup.credited_usd)} of it is already credited to your balance`
              : ""
          }. Send the missing ${missing} ${coin} to the same address to complete the top-up.`,
          "amber",
        ];
      case "confirming":
        return [
          "Payment received, confirming",
          `Seen, waiting for ${topup.confirmations_required - confirmations} more confirmation${topup.confirmations_required - confirmations === 1 ? "" : "s"} (${confirmations} of ${topup.confirmations_required}).${coin === "XMR" ? MONERO_LOCK : ""} You may leave this page: the balance is credited once it is confirmed.`,
          "sky",
        ];
      case "completed":
        return [
          "Completed",
          `Credited ${formatApiUsd(topup.credited_usd)}.${account ? ` Your balance is now ${formatApiUsd(account.balance_usd)}.` : ""}`,
          "emerald",
        ];
      case "expired":
        return [
          "Expired",
          topup.credited_usd > 0
            ? `The quote ran out after a partial payment; ${formatApiUsd(topup.credited_usd)} was credited for what arrived.`
            : "Nothing arrived before the quote ran out. Start a new top-up to get a fresh amount.",
          "zinc",
        ];
      default:
        return ["Cancelled", "This top-up was cancelled. Do not send anything to its address.", "zinc"];
    }
  })();
  const tones: Record<string, string> = {
    amber: "border-amber-400 bg-amber-50 text-amber-950 dark:bg-amber-950 dark:text-amber-100",
    sky: "border-sky-400 bg-sky-50 text-sky-950 dark:bg-sky-950 dark:text-sky-100",
    emerald: "border-emerald-400 bg-emerald-50 text-emerald-950 dark:bg-emerald-950 dark:text-emerald-100",
    zinc: "border-zinc-300 bg-zinc-50 text-zinc-900 dark:bg-zinc-900 dark:text-zinc-100",
  };
  return (
    <div role="status" aria-live="polite" className={`space-y-1 rounded border p-3 ${tones[tone]}`}>
      <p data-testid="topup-phase" className="font-semibold">
        {title}
      </p>
      <p className="text-sm">{body}</p>
    </div>
  );
}

/** Demo mode: pretend the payment was sent, whole or in part, to watch the states go by. */
function DemoPayControls({ topup }: { topup: Topup }) {
  const hydrated = useHydrated();
  const queryClient = useQueryClient();
  const pay = useMutation({
    mutationFn: (amount?: string) =>
      bffFetch<Topup>(`/bff/topups/${topup.ref}/demo-pay`, {
        method: "POST",
        body: amount ? { amount } : {},
      }),
    onSuccess: (updated) => queryClient.setQueryData(topupQuery(topup.ref).queryKey, updated),
  });
  // What is still missing, and half of it, in the coin's own decimals.
  const missing = decimalShortfall(topup.deposit_amount, topup.received_amount);
  const half = halfOf(missing);
  if (missing === "0") return null;
  return (
    <div className="space-y-2 rounded border border-dashed border-amber-500 p-3">
      <p className="text-sm font-medium">Demo mode: no real coins move.</p>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          disabled={!hydrated || pay.isPending}
          onClick={() => pay.mutate(missing)}
          className="rounded bg-amber-600 px-3 py-1.5 text-sm text-white disabled:opacity-50"
        >
          Simulate paying {missing} {topup.deposit_coin}
        </button>
        <button
          type="button"
          disabled={!hydrated || pay.isPending || half === "0"}
          onClick={() => pay.mutate(half)}
          className="rounded border border-amber-600 px-3 py-1.5 text-sm disabled:opacity-50"
        >
          Simulate paying half of it
        </button>
      </div>
      {pay.error && <Alert className="text-sm">{errorMessage(pay.error)}</Alert>}
    </div>
  );
}

function CancelControl({ topup }: { topup: Topup }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const hydrated = useHydrated();
  const cancel = useMutation({
    mutationFn: () => bffFetch<Topup>(`/bff/topups/${topup.ref}/cancel`, { method: "POST" }),
    onSuccess: (updated) => {
      queryClient.setQueryData(topupQuery(topup.ref).queryKey, updated);
      void queryClient.invalidateQueries({ queryKey: queryKeys.topups.all(), exact: true });
    },
  });
  return (
    <div className="space-y-1">
      {asking ? (
        <p className="flex flex-wrap items-center gap-2 text-sm">
          Cancel this top-up? Its quote ends now. A payment already on its way is still credited when it
          arrives.
          <button
            type="button"
            onClick={() => cancel.mutate()}
            disabled={!hydrated || cancel.isPending}
            className="rounded bg-red-700 px-3 py-1.5 text-white"
          >
            Yes, cancel it
          </button>
          <button type="button" className="underline" disabled={!hydrated} onClick={() => setAsking(false)}>
            Keep it
          </button>
        </p>
      ) : (
        <button
          type="button"
          className="text-sm underline"
          disabled={!hydrated}
          onClick={() => setAsking(true)}
        >
          Cancel top-up
        </button>
      )}
      {cancel.error && <Alert className="text-sm">{errorMessage(cancel.error)}</Alert>}
    </div>
  );
}

/** A classic-coin deposit: what to pay where, and its live status until it reaches a final state. */
export function DepositView({ topupRef }: { topupRef: string }) {
  const queryClient = useQueryClient();
  // Prefetched by the page: there from the first render, then polled until final.
  const { data: topup, error } = useSuspenseQuery(topupQuery(topupRef));
  // Each credit (a partial payment confirming, or the last one) moves the balance shown beside it at once.
  const credited = topup.credited_usd;
  useEffect(() => {
    if (credited > 0) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.account() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.topups.all(), exact: true });
    }
  }, [credited, queryClient]);

  const pending = topup.status === "pending";
  const wallet = topup.coin === X402_COIN.code;
  return (
    <div className="space-y-6">
      {error && (
        <Alert>{errorMessage(error)} The state below may be out of date; the page keeps asking.</Alert>
      )}
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <StatusBadge status={topup.status} /> {formatApiUsd(topup.amount_usd)} in {topup.deposit_coin}
        <span className="text-zinc-500">· {topup.ref}</span>
      </p>
      <StatusPanel topup={topup} />
      {wallet ? (
        <dl className="grid gap-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className={TEXT_STYLES.muted}>Paid from</dt>
          <dd className="break-all">{topup.payer ?? "—"}</dd>
          <dt className={TEXT_STYLES.muted}>Network</dt>
          <dd>{networkLabel(topup.deposit_network, topup.coin)}</dd>
        </dl>
      ) : (
        pending && (
          <div className="grid gap-6 md:grid-cols-[max-content_1fr]">
            {topup.qr_data_uri && (
              <a href={topup.payment_uri ?? undefined} className="block w-fit" title="Open in a wallet app">
                {/* biome-ignore lint/performance/noImgElement: a data URI from the API, nothing to optimise */}
                <img
                  src={topup.qr_data_uri}
                  alt={`QR code to pay ${topup.deposit_amount} ${topup.deposit_coin}`}
                  width={224}
                  height={224}
                  className="rounded bg-white p-2"
                />
              </a>
            )}
            <dl className="space-y-3 text-sm">
              <div>
                <dt className={TEXT_STYLES.muted}>Network</dt>
                <dd data-testid="deposit-network" className="font-medium">
                  {networkLabel(topup.deposit_network, topup.coin)}: send on this network only
                </dd>
              </div>
              <div>
                <dt className={TEXT_STYLES.muted}>Amount</dt>
                <dd className="flex items-center gap-2">
                  <code data-testid="deposit-amount" className="text-base">
                    {topup.deposit_amount}
                  </code>{" "}
                  {topup.deposit_coin}
                  <CopyButton value={topup.deposit_amount} label="Copy amount" />
                </dd>
              </div>
              <div>
                <dt className={TEXT_STYLES.muted}>Address</dt>
                <dd className="flex items-center gap-2">
                  <code data-testid="deposit-address" className="break-all">
                    {topup.deposit_address}
                  </code>
                  <CopyButton value={topup.deposit_address} label="Copy address" />
                </dd>
              </div>
              {topup.payment_uri && (
                <div>
                  <a href={topup.payment_uri} className="underline">
                    Open in a wallet app
                  </a>
                </div>
              )}
              {topup.expires_at && <Countdown expiresAt={topup.expires_at} />}
            </dl>
          </div>
        )
      )}
      {topup.payments.length > 0 && (
        <div className="space-y-2">
          <h2 className="text-lg font-semibold">Payments seen</h2>
          <ul className="space-y-1 text-sm">
            {topup.payments.map((payment) => (
              <li key={payment.tx_hash} className="break-all">
                {payment.amount} {topup.deposit_coin} ·{" "}
                {payment.dropped
                  ? "dropped: left the network's mempool unmined (replaced or evicted), not counted"
                  : `${Math.min(payment.confirmations, topup.confirmations_required)} of ${topup.confirmations_required} confirmations`}{" "}
                ·{" "}
                {payment.explorer_url ? (
                  <a
                    href={payment.explorer_url}
                    target="_blank"
                    rel="noreferrer noopener"
                    className="underline"
                  >
                    <code>{payment.tx_hash}</code>
                  </a>
                ) : (
                  <code>{payment.tx_hash}</code>
                )}
                {payment.credited_usd !== null && (
                  <div data-testid="payment-credit" className="text-zinc-600 dark:text-zinc-400">
                    Credited {formatApiUsd(payment.credited_usd)}
                    {payment.credited_parts.length > 0 && ":"}
                    <ul className="ml-4 list-disc">
                      {payment.credited_parts.map((part) => (
                        <li key={part.kind}>{creditedPartText(part, topup.deposit_coin)}</li>
                      ))}
                    </ul>
                  </div>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      {pending && !wallet && topup.demo && <DemoPayControls topup={topup} />}
      {/* Once money has arrived the API refuses to cancel: the control is offered only while it can work. */}
      {pending && !wallet && topup.payments.length === 0 && <CancelControl topup={topup} />}
      <Link prefetch={false} href="/dashboard/topups" className="text-sm underline">
        All top-ups
      </Link>
    </div>
  );
}
