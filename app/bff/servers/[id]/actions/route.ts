import { z } from "zod";
import { bffJson, bffRoute, jsonBody, notFound, numericId, relay } from "@/lib/bff-session/bff";

const ActionBody = z.object({ action: z.enum(["start", "stop", "reboot"]) });

/** Power actions: start, stop, reboot. */
export const POST = bffRoute(
  async ({ request, api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    const body = ActionBody.safeParse(await jsonBody(request));
    if (!body.success) {
      return bffJson({ error: "invalid_body", message: "Send {action: start | stop | reboot}." }, 400);
    }
    return relay(await api.POST("/servers/{id}/actions", { params: { path: { id } }, body: body.data }));
  },
  { signedIn: true },
);
