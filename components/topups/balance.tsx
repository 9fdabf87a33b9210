"use client";

import { useQuery } from "@tanstack/react-query";
import { TEXT_STYLES } from "@/components/ui/alert";
import { accountQuery } from "@/lib/dashboard/queries/account";
import { formatApiUsd } from "@/lib/util/cents";

/** The account balance as the API has it now; refreshed whenever a top-up completes. */
export function Balance() {
  const { data } = useQuery(accountQuery());
  return (
    <p className={`text-sm ${TEXT_STYLES.muted}`}>
      Balance:{" "}
      <span data-testid="balance" className="text-lg font-semibold text-zinc-900 dark:text-zinc-100">
        {data ? formatApiUsd(data.balance_usd) : "…"}
      </span>
    </p>
  );
}
