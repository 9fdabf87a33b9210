import { z } from "zod";
import { bffJson, bffRoute, relay } from "@/lib/session/bff";
import { noSuchTopup, topupRef } from "@/lib/session/bff-paths";

const DemoPayBody = z.strictObject({
  amount: z
    .string()
    .regex(/^\d{1,20}(\.\d{1,18})?$/)
    .optional(),
});

/** Demo mode: pretend the deposit (or `amount` of it) was sent. The API answers 404 outside demo mode. */
export const POST = bffRoute(
  async ({ request, api }) => {
    const ref = topupRef(request);
    if (!ref) return bffJson(noSuchTopup, 404);
    const body = DemoPayBody.safeParse(await request.json().catch(() => ({})));
    if (!body.success) return bffJson({ error: "invalid_body", message: "Send {amount?}." }, 400);
    return relay(await api.POST("/demo/topups/{ref}/pay", { params: { path: { ref } }, body: body.data }));
  },
  { signedIn: true },
);
