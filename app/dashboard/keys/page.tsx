import type { Metadata } from "next";
import { KeysPanel } from "@/components/keys/keys-panel";
import { Prefetched } from "@/components/providers/prefetched";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { keysQuery } from "@/lib/dashboard/queries/keys";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const api = await signedInApi();
  const [account, keys] = await Promise.all([
    api.GET("/account").then(pageData),
    api.GET("/keys").then(pageData),
  ]);
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">API keys</h1>
      <Prefetched fill={(client) => client.setQueryData(keysQuery().queryKey, keys)}>
        <KeysPanel totpEnabled={account.totp_enabled} />
      </Prefetched>
    </section>
  );
}
