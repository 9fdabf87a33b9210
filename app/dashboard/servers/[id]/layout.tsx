import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { Prefetched } from "@/components/providers/prefetched";
import { ServerShell } from "@/components/servers/sections/server-shell";
import { numericId } from "@/lib/dashboard/bff/bff";
import { pageData, signedInApi } from "@/lib/dashboard/bff/page-api";
import { serverQuery } from "@/lib/dashboard/queries/servers";

/**
 * Every section of a server's page: the server is read once here and put in the query cache, so each section
 * (a page of its own, loading only its own code) renders with it and moving between sections asks for nothing.
 */
export default async function ServerLayout({
  params,
  children,
}: {
  params: Promise<{ id: string }>;
  children: ReactNode;
}) {
  const id = numericId(await params);
  if (!id) notFound();
  const api = await signedInApi();
  const result = await api.GET("/servers/{id}", { params: { path: { id } } });
  // Another account's server is a 404 too, as in the API.
  if (result.response.status === 404) notFound();
  const server = pageData(result);
  return (
    <Prefetched fill={(client) => client.setQueryData(serverQuery(server.id).queryKey, server)}>
      <ServerShell id={server.id}>{children}</ServerShell>
    </Prefetched>
  );
}
