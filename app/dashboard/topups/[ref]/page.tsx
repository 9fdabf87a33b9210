import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Prefetched } from "@/components/providers/prefetched";
import { Balance } from "@/components/topups/balance";
import { DepositView } from "@/components/topups/deposit-view";
import { refParam } from "@/lib/dashboard/bff/bff";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { topupQuery } from "@/lib/dashboard/queries/topups";

export const metadata: Metadata = { title: "Top-up" };

export default async function TopupPage({ params }: { params: Promise<{ ref: string }> }) {
  const ref = refParam(await params);
  if (!ref) notFound();
  const result = await (await signedInApi()).GET("/topups/{ref}", { params: { path: { ref } } });
  // Another account's top-up is a 404 too, as in the API.
  if (result.response.status === 404) notFound();
  const topup = pageData(result);
  return (
    <section className="space-y-6">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold">Top-up</h1>
        <Balance />
      </div>
      <Prefetched fill={(client) => client.setQueryData(topupQuery(topup.ref).queryKey, topup)}>
        <DepositView topupRef={topup.ref} />
      </Prefetched>
    </section>
  );
}
