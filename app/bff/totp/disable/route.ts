import { z } from "zod";
import { bffJson, bffRoute, jsonBody, relay } from "@/lib/bff-session/bff";

const CodeBody = z.object({ code: z.string().max(16) });

export const POST = bffRoute(
  async ({ request, api }) => {
    const body = CodeBody.safeParse(await jsonBody(request));
    if (!body.success) return bffJson({ error: "invalid_body", message: "Send {code}." }, 400);
    return relay(await api.POST("/account/totp/disable", { body: body.data }));
  },
  { signedIn: true },
);
