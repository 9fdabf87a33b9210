import { bffRoute, relay } from "@/lib/bff-session/bff";

/** The account's live dashboard sessions, this one marked `current`. */
export const GET = bffRoute(async ({ api }) => relay(await api.GET("/sessions")), { signedIn: true });
