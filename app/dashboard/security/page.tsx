import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { TotpPanel } from "@/components/security/totp-panel";
import { apiClient } from "@/lib/api-client/client";
import { dashboardSession } from "@/lib/session/session";

export const metadata: Metadata = { title: "Security" };

export default async function SecurityPage() {
  const session = await dashboardSession();
  if (!session.apiKey) redirect("/signin");
  const requestHeaders = await headers();
  const origin = `${requestHeaders.get("x-forwarded-proto") ?? "http"}://${requestHeaders.get("host")}`;
  const { data: account } = await apiClient({ origin, apiKey: session.apiKey }).GET("/account");
  if (!account) redirect("/signin");
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Security</h1>
      <TotpPanel enabled={account.totp_enabled} />
    </section>
  );
}
