import { z } from "zod";
import { bffJson, bffRoute, jsonBody, notFound, refParam, relay } from "@/lib/bff-session/bff";

const DemoPayBody = z.strictObject({
  amount: z
    .string()
    .regex(/^\d{1,20}(\.\d{1,18})?$/)
    .optional(),
});

/** Demo mode: pretend the deposit (or `amount` of it) was sent. The API answers 404 outside demo mode. */
export const POST = bffRoute(
  async ({ request, api, params }) => {
    const ref = refParam(params);
    if (!ref) return notFound("top-up");
    const body = DemoPayBody.safeParse((await jsonBody(request)) ?? {});
    if (!body.success) return bffJson({ error: "invalid_body", message: "Send {amount?}." }, 400);
    return relay(await api.POST("/demo/topups/{ref}/pay", { params: { path: { ref } }, body: body.data }));
  },
  { signedIn: true },
);
