import { z } from "zod";
import { bffJson, bffRoute, jsonBody, notFound, numericId, relay } from "@/lib/bff-session/bff";

export const GET = bffRoute(
  async ({ api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    return relay(await api.GET("/servers/{id}", { params: { path: { id } } }));
  },
  { signedIn: true },
);

const UpdateBody = z.object({ auto_renew: z.boolean() });

/** Turns automatic renewal on or off. */
export const PATCH = bffRoute(
  async ({ request, api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    const body = UpdateBody.safeParse(await jsonBody(request));
    if (!body.success) return bffJson({ error: "invalid_body", message: "Send {auto_renew: boolean}." }, 400);
    return relay(await api.PATCH("/servers/{id}", { params: { path: { id } }, body: body.data }));
  },
  { signedIn: true },
);

/** Terminates the server now. The page asks the user to type the host name before it sends this. */
export const DELETE = bffRoute(
  async ({ api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    return relay(await api.DELETE("/servers/{id}", { params: { path: { id } } }));
  },
  { signedIn: true },
);
