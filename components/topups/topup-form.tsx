"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, lazy, Suspense, useRef, useState } from "react";
import { Alert, TEXT_STYLES } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { RadioCard } from "@/components/ui/radio-card";
import { TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "@/lib/catalog/topup-limits";
import { BffError, bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { type IntentRef, idempotencyKeyFor, settleIntent } from "@/lib/dashboard/queries/idempotency";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { Topup } from "@/lib/dashboard/queries/types";
import { COINS, DEFAULT_COIN, X402_COIN } from "@/lib/rails/registry";
import { parseTopupAmount } from "@/lib/topups/view";
import { formatUsd } from "@/lib/util/cents";

/** The wallet libraries load only when someone opens the USDC payment (in the browser), never with this page. */
const WalletPayment = lazy(() => import("./wallet/wallet-payment"));

const WALLET_COIN = X402_COIN.code;
const AMOUNT_CODES = new Set(["amount_too_low", "amount_too_high", "invalid_amount"]);

/** Amount and coin; a classic coin opens its deposit page, USDC on Base opens the wallet payment. */
export function TopupForm({
  demoWallet,
  initialAmount = "50",
}: {
  demoWallet: `0x${string}` | undefined;
  initialAmount?: string;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [amountText, setAmountText] = useState(initialAmount);
  const [coin, setCoin] = useState<string>(DEFAULT_COIN);
  const [fieldError, setFieldError] = useState("");
  const [walletAmount, setWalletAmount] = useState<number>();

  const intent: IntentRef = useRef(undefined);
  const create = useMutation({
    mutationFn: (input: { cents: number; coin: string }) => {
      const body = { amount: input.cents / 100, coin: input.coin };
      return bffFetch<Topup>("/bff/topups", {
        method: "POST",
        body,
        headers: { "idempotency-key": idempotencyKeyFor(intent, body) },
      });
    },
    onError: (error) => {
      settleIntent(intent, error);
      // The API's refusal of the amount belongs beside the amount field.
      if (error instanceof BffError && AMOUNT_CODES.has(error.code)) setFieldError(error.message);
    },
    onSuccess: (topup) => {
      settleIntent(intent);
      void queryClient.invalidateQueries({ queryKey: queryKeys.topups.all() });
      router.push(`/dashboard/topups/${topup.ref}`);
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = parseTopupAmount(amountText);
    if ("error" in parsed) {
      setFieldError(parsed.error);
      return;
    }
    setFieldError("");
    if (coin === WALLET_COIN) setWalletAmount(parsed.cents);
    else create.mutate({ cents: parsed.cents, coin });
  }

  if (walletAmount !== undefined) {
    return (
      <div className="space-y-3">
        <Suspense fallback={<p role="status">Loading the wallet payment…</p>}>
          <WalletPayment amountCents={walletAmount} demoWallet={demoWallet} />
        </Suspense>
        <button type="button" className="text-sm underline" onClick={() => setWalletAmount(undefined)}>
          Change the amount or the coin
        </button>
      </div>
    );
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      <div className="space-y-1">
        <label htmlFor="topup-amount" className="block text-sm font-medium">
          Amount in USD
        </label>
        <input
          id="topup-amount"
          name="amount"
          inputMode="decimal"
          value={amountText}
          onChange={(event) => setAmountText(event.target.value)}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby="topup-amount-help"
          className="w-40 rounded border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
        />
        <p id="topup-amount-help" className={`text-xs ${TEXT_STYLES.muted}`}>
          From {formatUsd(TOPUP_MIN_CENTS)} to {formatUsd(TOPUP_MAX_CENTS)}, whole cents.
        </p>
        {fieldError && <Alert className="text-sm">{fieldError}</Alert>}
      </div>
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Pay with</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {COINS.map((option) => (
            <RadioCard
              key={option.code}
              look="compact"
              name="coin"
              value={option.code}
              checked={coin === option.code}
              onChange={() => setCoin(option.code)}
            >
              <span>
                {option.method === "x402" ? "USDC on Base, from a browser wallet" : option.name}{" "}
                <span className="text-zinc-500">({option.code})</span>
              </span>
            </RadioCard>
          ))}
        </div>
      </fieldset>
      {create.error && !(create.error instanceof BffError && AMOUNT_CODES.has(create.error.code)) && (
        <Alert>{errorMessage(create.error)}</Alert>
      )}
      <Button type="submit" variant="primary" disabled={create.isPending}>
        {coin === WALLET_COIN ? "Continue to wallet payment" : "Get a deposit address"}
      </Button>
    </form>
  );
}
