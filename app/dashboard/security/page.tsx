import type { Metadata } from "next";
import { Prefetched } from "@/components/providers/prefetched";
import { LoginTokenPanel } from "@/components/security/login-token-panel";
import { SessionsPanel } from "@/components/security/sessions-panel";
import { TotpPanel } from "@/components/security/totp-panel";
import { Panel } from "@/components/ui/panel";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { sessionsQuery } from "@/lib/dashboard/queries/sessions";

export const metadata: Metadata = { title: "Security" };

export default async function SecurityPage() {
  const api = await signedInApi();
  const [account, sessions] = await Promise.all([
    api.GET("/account").then(pageData),
    api.GET("/sessions").then(pageData),
  ]);
  return (
    <section className="space-y-8">
      <h1 className="text-2xl font-semibold">Security</h1>
      <TotpPanel enabled={account.totp_enabled} />
      <Panel id="sessions" title="Dashboard sessions">
        <Prefetched fill={(client) => client.setQueryData(sessionsQuery().queryKey, sessions)}>
          <SessionsPanel />
        </Prefetched>
      </Panel>
      <Panel id="login-token" title="Login token">
        <LoginTokenPanel totpEnabled={account.totp_enabled} />
      </Panel>
    </section>
  );
}
