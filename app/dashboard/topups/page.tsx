import type { Metadata } from "next";
import { Balance } from "@/components/topups/balance";
import { TopupForm } from "@/components/topups/topup-form";
import { TopupHistory } from "@/components/topups/topup-history";
import { TEXT_STYLES } from "@/components/ui/alert";
import { signedInApi } from "@/lib/dashboard/bff/page-api";
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
  await signedInApi();
  const amount = prefilledAmount((await searchParams).amount);
  return (
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
  );
}
