import { bffJson, bffRoute, jsonBody } from "@/lib/dashboard/bff/bff";
import { checkWalletRpcBody, RpcBodySchema } from "@/lib/dashboard/bff/wallet-rpc";
import { x402Settings } from "@/lib/rails/x402/config";
import { x402RpcUrl } from "@/lib/rails/x402/rail";
import { clientAddress, consume, limiters } from "@/lib/rate-limit/limits";

/**
 * Read-only JSON-RPC of the chain x402 payments settle on, for the wallet page's reads: the chain id and the
 * USDC balance. Wallets sign in the browser; nothing that sends or signs passes here, the node's URL (which
 * may carry a provider key) stays on the server, and since every call spends that node's capacity (the one
 * settlement needs) only the page's own reads pass, rebuilt from their checked fields (lib/dashboard/bff/wallet-rpc),
 * in small bodies, at a limited rate.
 */
const MAX_BODY_BYTES = 16 * 1024;

export const POST = bffRoute(
  async ({ request }) => {
    await consume(limiters().walletRpc, clientAddress(request.headers));
    const parsed = RpcBodySchema.safeParse(await jsonBody(request, MAX_BODY_BYTES));
    if (!parsed.success) {
      return bffJson({ error: "invalid_body", message: "Send a JSON-RPC 2.0 request." }, 400);
    }
    const batch = Array.isArray(parsed.data);
    const calls = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
    const checked = checkWalletRpcBody(calls, x402Settings().usdc.address);
    if ("refusal" in checked) return bffJson({ error: "method_not_allowed", message: checked.refusal }, 400);
    const rpcUrl = x402RpcUrl();
    if (!rpcUrl) {
      return bffJson({ error: "chain_unavailable", message: "The payment network is not reachable." }, 503);
    }
    const upstream = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(batch ? checked.forward : checked.forward[0]),
      signal: AbortSignal.timeout(10_000),
    });
    return bffJson(await upstream.json(), upstream.ok ? 200 : 502);
  },
  { signedIn: true },
);
