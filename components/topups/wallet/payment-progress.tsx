import type { Stage } from "./use-wallet-payment";

const STEPS = [
  { step: "signing", label: "Sign in your wallet" },
  { step: "settling", label: "Settle on chain" },
  { step: "credited", label: "Credited to your balance" },
] as const;

const LOOKS = {
  done: "text-emerald-700 dark:text-emerald-400",
  active: "font-semibold text-zinc-900 dark:text-zinc-100",
  upcoming: "text-zinc-500",
};

const MARKS = {
  done: "border-emerald-600 bg-emerald-600 text-white",
  active: "animate-pulse border-zinc-900 dark:border-zinc-100",
  upcoming: "border-zinc-400",
};

/** The staged progress of a payment, with the current step marked. */
export function PaymentProgress({ stage, networkName }: { stage: Stage; networkName: string }) {
  if (stage.step === "ready" || stage.step === "failed") return null;
  const status =
    stage.step === "requesting"
      ? "Getting the payment request…"
      : stage.step === "signing"
        ? "Waiting for your signature in the wallet…"
        : stage.step === "settling"
          ? `Settling the payment on ${networkName}…`
          : "Payment settled.";
  const index = STEPS.findIndex((item) => item.step === stage.step);
  // Done: every step before the current one, and the last step once reached; active: the one under way.
  const stateOf = (position: number) =>
    position < index || (position === index && stage.step === "credited")
      ? "done"
      : position === index
        ? "active"
        : "upcoming";
  return (
    <div className="space-y-2">
      <ol className="flex flex-wrap gap-4 text-sm">
        {STEPS.map((item, position) => {
          const state = stateOf(position);
          return (
            <li
              key={item.step}
              data-state={state}
              aria-current={state === "active" ? "step" : undefined}
              className={`flex items-center gap-1.5 ${LOOKS[state]}`}
            >
              <span
                aria-hidden="true"
                className={`inline-flex size-5 items-center justify-center rounded-full border text-xs ${MARKS[state]}`}
              >
                {state === "done" ? "✓" : position + 1}
              </span>
              {item.label}
              {state === "done" && <span className="sr-only"> (done)</span>}
            </li>
          );
        })}
      </ol>
      <p role="status" data-testid="wallet-stage" className="text-sm">
        {status}
      </p>
    </div>
  );
}
