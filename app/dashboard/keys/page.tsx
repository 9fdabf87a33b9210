import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { KeysPanel } from "@/components/keys/keys-panel";
import { dashboardSession } from "@/lib/session/session";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  if (!(await dashboardSession()).apiKey) redirect("/signin");
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">API keys</h1>
      <KeysPanel />
    </section>
  );
}
