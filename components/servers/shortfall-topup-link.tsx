import Link from "next/link";
import { topupToCover } from "@/lib/catalog/topup-limits";
import { formatUsd } from "@/lib/util/cents";

/** A link to the top-up page with the amount that covers a shortfall (at least the smallest top-up). */
export function ShortfallTopupLink({
  deficitCents,
  className,
}: {
  deficitCents: number;
  className?: string;
}) {
  const cents = topupToCover(deficitCents);
  return (
    <Link
      prefetch={false}
      href={`/dashboard/topups?amount=${(cents / 100).toFixed(2)}`}
      className={className}
    >
      Top up {formatUsd(cents)}
    </Link>
  );
}
