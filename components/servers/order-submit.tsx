import { BffError, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { formatUsd } from "@/lib/util/cents";
import { Alert, TEXT_STYLES } from "../ui/alert";
import { BUTTON_STYLES, Button } from "../ui/button";
import { ACCESS_FIELD_CODES } from "./access-fields";
import { ShortfallTopupLink } from "./shortfall-topup-link";

/**
 * The form's end: the order button, or the top-up that covers the shortfall; and a refusal that belongs to
 * no single field (one that does is shown under its field).
 */
export function OrderSubmit(props: {
  priceCents: number;
  deficitCents: number;
  pending: boolean;
  error: Error | null;
}) {
  const refused = props.error instanceof BffError ? props.error : undefined;
  const generalError = props.error && !ACCESS_FIELD_CODES.has(refused?.code ?? "");
  return (
    <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
      {props.deficitCents > 0 ? (
        <p className="flex flex-wrap items-center gap-3">
          <ShortfallTopupLink deficitCents={props.deficitCents} className={BUTTON_STYLES.primary} />
          <span className={`text-sm ${TEXT_STYLES.error}`}>
            The balance is {formatUsd(props.deficitCents)} short of this order.
          </span>
        </p>
      ) : (
        <Button type="submit" variant="primary" disabled={props.pending}>
          {props.pending ? "Ordering…" : `Order for ${formatUsd(props.priceCents)}`}
        </Button>
      )}
      <p aria-live="polite" className="text-sm">
        {generalError && (
          <Alert as="span">
            {errorMessage(props.error)}
            {refused?.code === "insufficient_balance" && " Top up and try again."}
          </Alert>
        )}
      </p>
    </div>
  );
}
