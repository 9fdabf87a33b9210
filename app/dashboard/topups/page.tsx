import type { Metadata } from "next";
import { Prefetched } from "@/components/providers/prefetched";
import { Balance } from "@/components/topups/balance";
import { TopupForm } from "@/components/topups/topup-form";
import { TopupHistory } from "@/components/topups/topup-history";
import { TEXT_STYLES } from "@/components/ui/alert";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { accountQuery } from "@/lib/dashboard/queries/account";
import { topupsQuery } from "@/lib/dashboard/queries/topups";
import { demoWalletAddress } from "@/lib/demo-chain/demo-wallet";

export const metadata: Metadata = { title: "Top up" };

/** `?amount=12.34` (from the order page's shortfall link) fills in the amount; anything else is ignored. */
const prefilledAmount = (value: string | string[] | undefined) =>
  typeof value === "string" && /^\d{1,4}(\.\d{1,2})?$/.test(value) ? value : undefined;

export default async function TopupsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const api = await signedInApi();
  const [account, firstPage] = await Promise.all([
    api.GET("/account").then(pageData),
    api.GET("/topups").then(pageData),
  ]);
  const amount = prefilledAmount((await searchParams).amount);
  // The balance and the history are in the page's HTML: nothing is fetched again as it loads.
  return (
    <Prefetched
      fill={(client) => {
        client.setQueryData(accountQuery().queryKey, account);
        client.setQueryData(topupsQuery().queryKey, { pages: [firstPage], pageParams: [null] });
      }}
    >
      <section className="space-y-8">
        <div className="space-y-1">
          <h1 className="text-2xl font-semibold">Top up</h1>
          <Balance />
          <p className={`text-sm ${TEXT_STYLES.muted}`}>
            Top-ups are paid on chain and are not refundable. The balance rises as soon as the payment is
            confirmed.
          </p>
        </div>
        <TopupForm demoWallet={demoWalletAddress()} initialAmount={amount} />
        <div className="space-y-2">
          <h2 className="text-lg font-semibold">History</h2>
          <TopupHistory />
        </div>
      </section>
    </Prefetched>
  );
}
