import type { Metadata } from "next";
import { LoginTokenPanel } from "@/components/security/login-token-panel";
import { SessionsPanel } from "@/components/security/sessions-panel";
import { TotpPanel } from "@/components/security/totp-panel";
import { Panel } from "@/components/ui/panel";
import { signedInAccount } from "@/lib/dashboard/bff/page-api";

export const metadata: Metadata = { title: "Security" };

export default async function SecurityPage() {
  const account = await signedInAccount();
  return (
    <section className="space-y-8">
      <h1 className="text-2xl font-semibold">Security</h1>
      <TotpPanel enabled={account.totp_enabled} />
      <Panel id="sessions" title="Dashboard sessions">
        <SessionsPanel />
      </Panel>
      <Panel id="login-token" title="Login token">
        <LoginTokenPanel totpEnabled={account.totp_enabled} />
      </Panel>
    </section>
  );
}
