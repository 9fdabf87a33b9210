import { z } from "zod";
import { bffJson, bffRoute, jsonBody, relay } from "@/lib/bff-session/bff";

export const GET = bffRoute(async ({ api }) => relay(await api.GET("/keys")), { signedIn: true });

const CreateKeyBody = z.object({ name: z.string().max(64).optional() });

/** Creates an API key; this answer is the only place its full value appears. */
export const POST = bffRoute(
  async ({ request, api }) => {
    const body = CreateKeyBody.safeParse((await jsonBody(request)) ?? {});
    if (!body.success) return bffJson({ error: "invalid_body", message: "Send {name?}." }, 400);
    return relay(await api.POST("/keys", { body: body.data.name ? { name: body.data.name } : {} }));
  },
  { signedIn: true },
);
