import type { Metadata } from "next";
import { OrderForm } from "@/components/servers/order-form";
import { signedInAccount } from "@/lib/session/page-api";

export const metadata: Metadata = { title: "Order a server" };

export default async function OrderPage() {
  const account = await signedInAccount();
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Order a server</h1>
      <OrderForm account={account} />
    </section>
  );
}
