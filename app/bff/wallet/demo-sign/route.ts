import { z } from "zod";
import { bffJson, bffRoute, jsonBody } from "@/lib/dashboard/bff/bff";
import { signDemoAuthorization } from "@/lib/demo-chain/demo-wallet";

const uint = z.string().regex(/^\d{1,78}$/);
const DemoSignBody = z.strictObject({
  to: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  value: uint,
  validAfter: uint,
  validBefore: uint,
  nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/) as z.ZodType<`0x${string}`>,
});

/**
 * Demo mode: the demo wallet signs a top-up authorization (its key stays here). The browser still sends
 * the signed payment through the same x402 path as any wallet.
 */
export const POST = bffRoute(
  async ({ request }) => {
    const body = DemoSignBody.safeParse(await jsonBody(request));
    if (!body.success) {
      return bffJson({ error: "invalid_body", message: "Send the authorization's terms." }, 400);
    }
    const signed = await signDemoAuthorization(body.data, Math.floor(Date.now() / 1000));
    if ("refused" in signed) {
      const status = signed.noWallet ? 404 : 400;
      return bffJson({ error: "demo_wallet_refused", message: signed.refused }, status);
    }
    return bffJson(signed);
  },
  { signedIn: true },
);
