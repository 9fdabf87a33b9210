import type { Cycle } from "@/lib/catalog/catalog";
import { formatUsd } from "@/lib/util/cents";
import { TEXT_STYLES } from "../ui/alert";

/** The price of the order beside the balance, and the shortfall when there is one. */
export function OrderSummary(props: {
  priceCents: number;
  balanceCents: number;
  deficitCents: number;
  cycle: Cycle;
}) {
  return (
    <aside
      aria-label="Price"
      className="h-fit space-y-3 rounded border border-zinc-200 p-4 lg:sticky lg:top-4 dark:border-zinc-800"
    >
      <dl className="space-y-2">
        <div className="flex justify-between gap-2">
          <dt>Price</dt>
          <dd data-testid="order-price" className="font-semibold">
            {formatUsd(props.priceCents)} / {props.cycle === "annual" ? "year" : "month"}
          </dd>
        </div>
        <div className="flex justify-between gap-2">
          <dt>Balance</dt>
          <dd data-testid="order-balance">{formatUsd(props.balanceCents)}</dd>
        </div>
        {props.deficitCents > 0 && (
          <div className={`flex justify-between gap-2 ${TEXT_STYLES.error}`}>
            <dt>Short by</dt>
            <dd data-testid="order-deficit">{formatUsd(props.deficitCents)}</dd>
          </div>
        )}
      </dl>
    </aside>
  );
}
