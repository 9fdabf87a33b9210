import type { Metadata } from "next";
import { NotificationsPanel } from "@/components/notifications/notifications-panel";
import { Prefetched } from "@/components/providers/prefetched";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { webhooksQuery } from "@/lib/dashboard/queries/notifications";

export const metadata: Metadata = { title: "Notifications" };

export default async function NotificationsPage() {
  const webhooks = pageData(await (await signedInApi()).GET("/webhooks"));
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Notifications</h1>
      <p className="text-sm">
        No e-mail here: events go to a webhook of yours (a signed JSON POST, retried for about a day) or to an
        ntfy push topic your phone subscribes to. Top-ups credited, servers ready, expiring, suspended or
        terminated, low balance, snapshots, rescue mode, console sessions and traffic.
      </p>
      <Prefetched fill={(client) => client.setQueryData(webhooksQuery().queryKey, webhooks)}>
        <NotificationsPanel />
      </Prefetched>
    </section>
  );
}
