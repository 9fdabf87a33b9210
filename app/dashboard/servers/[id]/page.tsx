import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Prefetched } from "@/components/providers/prefetched";
import { ServerDetail } from "@/components/servers/server-detail";
import { numericId } from "@/lib/dashboard/bff/bff";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { serverQuery } from "@/lib/dashboard/queries/servers";

export const metadata: Metadata = { title: "Server" };

export default async function ServerPage({ params }: { params: Promise<{ id: string }> }) {
  const id = numericId(await params);
  if (!id) notFound();
  const api = await signedInApi();
  const result = await api.GET("/servers/{id}", { params: { path: { id } } });
  // Another account's server is a 404 too, as in the API.
  if (result.response.status === 404) notFound();
  const server = pageData(result);
  return (
    <Prefetched fill={(client) => client.setQueryData(serverQuery(server.id).queryKey, server)}>
      <ServerDetail id={server.id} />
    </Prefetched>
  );
}
