import type { Metadata } from "next";
import { Prefetched } from "@/components/providers/prefetched";
import { ServerList } from "@/components/servers/server-list";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { serversQuery } from "@/lib/dashboard/queries/servers";

export const metadata: Metadata = { title: "Servers" };

export default async function ServersPage() {
  const firstPage = pageData(await (await signedInApi()).GET("/servers"));
  return (
    <section className="space-y-6">
      <h1 className="text-2xl font-semibold">Servers</h1>
      <Prefetched
        fill={(client) =>
          client.setQueryData(serversQuery().queryKey, { pages: [firstPage], pageParams: [null] })
        }
      >
        <ServerList />
      </Prefetched>
    </section>
  );
}
