import type { Metadata } from "next";
import { KeysPanel } from "@/components/keys/keys-panel";
import { signedInAccount } from "@/lib/dashboard/bff/page-api";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const account = await signedInAccount();
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">API keys</h1>
      <KeysPanel totpEnabled={account.totp_enabled} />
    </section>
  );
}
