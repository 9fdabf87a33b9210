import { z } from "zod";
import { USER_DATA_MAX_BYTES } from "@/lib/api/schemas/servers";
import {
  bffJson,
  bffRoute,
  idempotencyHeader,
  jsonBody,
  notFound,
  numericId,
  relay,
} from "@/lib/dashboard/bff/bff";

const ReinstallBody = z.strictObject({
  os: z.string().max(64),
  confirm: z.string().max(253),
  snapshot_first: z.boolean().optional(),
  // The API checks it (kind and size) and answers with its own code.
  user_data: z.string().max(USER_DATA_MAX_BYTES).optional(),
});

/** The OSes a reinstall can choose from: the catalog's, with whether this deployment has an image. */
export const GET = bffRoute(
  async ({ api, params }) => {
    if (!numericId(params)) return notFound("server");
    const catalog = await api.GET("/catalog");
    if (!catalog.data) return relay(catalog);
    return bffJson({
      os: catalog.data.os.map((os) => ({ id: os.id, name: os.name, available: os.available })),
    });
  },
  { signedIn: true },
);

/**
 * Wipes the disk (after a snapshot of it, unless `snapshot_first` is false) and installs the chosen OS afresh;
 * the typed hostname and the Idempotency-Key pass on.
 */
export const POST = bffRoute(
  async ({ request, api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    const body = ReinstallBody.safeParse(await jsonBody(request));
    if (!body.success) {
      return bffJson(
        {
          error: "invalid_body",
          message: "Send {os, confirm: the server's hostname, snapshot_first?, user_data?}.",
        },
        400,
      );
    }
    const result = await api.POST("/servers/{id}/reinstall", {
      params: { path: { id } },
      body: body.data as never,
      headers: idempotencyHeader(request),
    });
    // The new password is revealed on request by the credentials panel, never kept in this answer.
    if (result.data) delete (result.data as { root_password?: string }).root_password;
    return relay(result);
  },
  { signedIn: true },
);
