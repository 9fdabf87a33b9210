import type { Metadata } from "next";
import { Prefetched } from "@/components/providers/prefetched";
import { OrderForm } from "@/components/servers/order-form";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { accountQuery } from "@/lib/dashboard/queries/account";

export const metadata: Metadata = { title: "Order a server" };

export default async function OrderPage() {
  const api = await signedInApi();
  const [account, catalog] = await Promise.all([
    api.GET("/account").then(pageData),
    api.GET("/catalog").then(pageData),
  ]);
  const unavailableOs = catalog.os.filter((os) => !os.available).map((os) => os.id);
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Order a server</h1>
      <Prefetched fill={(client) => client.setQueryData(accountQuery().queryKey, account)}>
        <OrderForm unavailableOs={unavailableOs} />
      </Prefetched>
    </section>
  );
}
