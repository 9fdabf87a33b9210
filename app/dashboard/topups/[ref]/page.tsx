import type { Metadata } from "next";
import { Balance } from "@/components/topups/balance";
import { DepositView } from "@/components/topups/deposit-view";
import { signedInApi } from "@/lib/session/page-api";

export const metadata: Metadata = { title: "Top-up" };

export default async function TopupPage({ params }: { params: Promise<{ ref: string }> }) {
  await signedInApi();
  const { ref } = await params;
  return (
    <section className="space-y-6">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold">Top-up</h1>
        <Balance />
      </div>
      <DepositView topupRef={ref} />
    </section>
  );
}
