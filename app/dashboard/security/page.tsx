import type { Metadata } from "next";
import { LoginTokenPanel } from "@/components/security/login-token-panel";
import { SessionsPanel } from "@/components/security/sessions-panel";
import { TotpPanel } from "@/components/security/totp-panel";
import { signedInAccount } from "@/lib/bff-session/page-api";

export const metadata: Metadata = { title: "Security" };

export default async function SecurityPage() {
  const account = await signedInAccount();
  return (
    <section className="space-y-8">
      <h1 className="text-2xl font-semibold">Security</h1>
      <TotpPanel enabled={account.totp_enabled} />
      <section aria-labelledby="sessions-heading" className="space-y-3">
        <h2 id="sessions-heading" className="text-lg font-semibold">
          Dashboard sessions
        </h2>
        <SessionsPanel />
      </section>
      <section aria-labelledby="login-token-heading" className="space-y-3">
        <h2 id="login-token-heading" className="text-lg font-semibold">
          Login token
        </h2>
        <LoginTokenPanel totpEnabled={account.totp_enabled} />
      </section>
    </section>
  );
}
