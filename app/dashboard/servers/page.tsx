import type { Metadata } from "next";
import { ServerList } from "@/components/servers/server-list";
import { pageData, signedInApi } from "@/lib/bff-session/page-api";

export const metadata: Metadata = { title: "Servers" };

export default async function ServersPage() {
  const firstPage = pageData(await (await signedInApi()).GET("/servers"));
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Servers</h1>
      <ServerList firstPage={firstPage} />
    </section>
  );
}
