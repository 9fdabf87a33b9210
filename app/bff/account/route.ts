import { bffRoute, relay } from "@/lib/bff-session/bff";

export const GET = bffRoute(async ({ api }) => relay(await api.GET("/account")), { signedIn: true });
