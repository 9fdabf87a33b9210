import type { Metadata } from "next";
import { KeysPanel } from "@/components/keys/keys-panel";
import { signedInApi } from "@/lib/bff-session/page-api";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  await signedInApi();
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">API keys</h1>
      <KeysPanel />
    </section>
  );
}
