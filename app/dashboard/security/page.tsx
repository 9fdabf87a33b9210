import type { Metadata } from "next";
import { TotpPanel } from "@/components/security/totp-panel";
import { signedInAccount } from "@/lib/session/page-api";

export const metadata: Metadata = { title: "Security" };

export default async function SecurityPage() {
  const account = await signedInAccount();
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Security</h1>
      <TotpPanel enabled={account.totp_enabled} />
    </section>
  );
}
