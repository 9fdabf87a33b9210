import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";

/**
 * Server pages render with what they read from the API already in the browser's query cache: `fill` puts it
 * there under a query factory's key (lib/dashboard/queries), and the client components read it with the same queries
 * they poll with, so the first paint needs no request from the browser and no data travels as props.
 */
export function Prefetched({ fill, children }: { fill: (client: QueryClient) => void; children: ReactNode }) {
  const client = new QueryClient();
  fill(client);
  return <HydrationBoundary state={dehydrate(client)}>{children}</HydrationBoundary>;
}
