"use client";

import type { Topup } from "@/lib/dashboard/queries/types";
import type { X402Requirement } from "@/lib/dashboard/wallet/authorization";
import { formatApiUsd, formatUsd } from "@/lib/util/cents";
import { Alert, TEXT_STYLES } from "../../ui/alert";
import { ConnectWallet } from "./connect-wallet";
import { usdc } from "./format";
import { PaymentProgress } from "./payment-progress";
import { useWalletPayment } from "./use-wallet-payment";
import { WalletFacts } from "./wallet-facts";

/** The wallet path once the challenge is known: connect, check chain and balance, sign, settle. */
export function PayWithWallet({
  amountCents,
  requirement,
}: {
  amountCents: number;
  requirement: X402Requirement;
}) {
  const flow = useWalletPayment(amountCents, requirement);
  const { stage, connected, balance, needed, network } = flow;
  const isShort = balance.data !== undefined && balance.data < needed;
  const busy = stage.step === "requesting" || stage.step === "signing" || stage.step === "settling";

  return (
    <section
      aria-labelledby="wallet-heading"
      className="space-y-4 rounded border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h2 id="wallet-heading" className="text-lg font-semibold">
        Pay {formatUsd(amountCents)} in USDC on {network}
      </h2>
      <p className={`text-sm ${TEXT_STYLES.muted}`}>
        You sign a USDC transfer authorization for exactly {usdc(needed)}; the service submits it and pays the
        gas. Nothing leaves your wallet before you sign.
      </p>

      {connected ? <WalletFacts flow={flow} address={connected} /> : <ConnectWallet />}

      {connected && isShort && stage.step !== "credited" && (
        <Alert className="text-sm">
          This wallet does not hold enough USDC on {network} for this top-up ({usdc(needed)} needed).
        </Alert>
      )}

      {connected && stage.step !== "credited" && (
        <button
          type="button"
          // Checking a payment already signed needs no funds: they may be on their way to us.
          disabled={busy || (!flow.checkAgain && (isShort || balance.data === undefined))}
          onClick={() => (flow.checkAgain ? flow.settle(flow.checkAgain) : flow.pay())}
          className="rounded bg-emerald-700 px-4 py-2 text-white disabled:opacity-50"
        >
          {stage.step !== "failed"
            ? `Pay ${usdc(needed)}`
            : flow.checkAgain
              ? "Check again"
              : "Try again (sign a new authorization)"}
        </button>
      )}

      <PaymentProgress stage={stage} networkName={network} />

      {stage.step === "failed" && <Alert data-testid="wallet-error">{stage.message}</Alert>}

      {stage.step === "credited" && <Credited topup={stage.topup} balanceUsd={flow.account?.balance_usd} />}
    </section>
  );
}

/** The credit, its transaction and the new balance. */
function Credited({ topup, balanceUsd }: { topup: Topup; balanceUsd: number | undefined }) {
  return (
    <div
      role="status"
      className="space-y-1 rounded border border-emerald-400 bg-emerald-50 p-3 text-emerald-950 dark:bg-emerald-950 dark:text-emerald-100"
    >
      <p className="font-semibold">Credited {formatApiUsd(topup.credited_usd)}.</p>
      {topup.payments[0] && (
        <p className="break-all text-sm">
          Transaction: <code data-testid="tx-hash">{topup.payments[0].tx_hash}</code>
        </p>
      )}
      <p>
        Your balance is now <strong>{balanceUsd !== undefined ? formatApiUsd(balanceUsd) : "…"}</strong>.
      </p>
    </div>
  );
}
