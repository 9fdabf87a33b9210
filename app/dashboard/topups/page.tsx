import type { Metadata } from "next";
import { Balance } from "@/components/topups/balance";
import { TopupForm } from "@/components/topups/topup-form";
import { TopupHistory } from "@/components/topups/topup-history";
import { signedInApi } from "@/lib/session/page-api";
import { demoWalletAddress } from "@/lib/x402/demo-wallet";

export const metadata: Metadata = { title: "Top up" };

export default async function TopupsPage() {
  await signedInApi();
  return (
    <section className="space-y-8">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold">Top up</h1>
        <Balance />
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Top-ups are paid on chain and are not refundable. The balance rises as soon as the payment is
          confirmed.
        </p>
      </div>
      <TopupForm demoWallet={demoWalletAddress()} />
      <div className="space-y-2">
        <h2 className="text-lg font-semibold">History</h2>
        <TopupHistory />
      </div>
    </section>
  );
}
