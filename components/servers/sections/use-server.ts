"use client";

import { useSuspenseQuery } from "@tanstack/react-query";
import { serverQuery } from "@/lib/dashboard/queries/servers";
import type { Server } from "@/lib/dashboard/queries/types";

/** The server a section shows, from the cache the page's layout filled (then kept fresh by its polling). */
export function useServer(id: number): Server {
  return useSuspenseQuery(serverQuery(id)).data;
}

/** Whether the server is still there (not terminated), and whether a lapsed one still has its disk kept. */
export function lifeOf(server: Server) {
  const live = server.status !== "terminated";
  return { live, retained: !live && server.retained_until !== null };
}
