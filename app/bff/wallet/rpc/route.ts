import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { config } from "@/lib/config/env";
import { clientAddress, consume, limiters } from "@/lib/rate-limit/limits";
import { bffJson, bffRoute, jsonBody } from "@/lib/session/bff";
import { x402RpcUrl } from "@/lib/x402/rail";

/**
 * Read-only JSON-RPC of the chain x402 payments settle on, for the wallet page's reads: the chain id and the
 * USDC balance. Wallets sign in the browser; nothing that sends or signs passes here, the node's URL (which
 * may carry a provider key) stays on the server, and since every call spends that node's quota (the one
 * settlement needs) only the page's own few reads are allowed, in small bodies, at a limited rate.
 */
const READ_METHODS = new Set(["eth_chainId", "net_version", "eth_blockNumber", "eth_call"]);
const MAX_BODY_BYTES = 16 * 1024;

const RpcCall = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.number(), z.string(), z.null()]).optional(),
  method: z.string().max(64),
  params: z.array(z.unknown()).max(3).optional(),
});
const RpcBody = z.union([RpcCall, z.array(RpcCall).min(1).max(3)]);
type RpcCall = z.infer<typeof RpcCall>;

/** Why a call may not pass, or undefined: a read method, and `eth_call` only on the USDC contract. */
function refusal(call: RpcCall): string | undefined {
  if (!READ_METHODS.has(call.method)) return `${call.method} is not one of the reads this page makes.`;
  if (call.method !== "eth_call") return undefined;
  const to = (call.params?.[0] as { to?: unknown } | undefined)?.to;
  const usdc = config().x402.usdc.address;
  if (typeof to !== "string" || !isAddress(to) || getAddress(to) !== getAddress(usdc)) {
    return "eth_call reaches the USDC contract only.";
  }
  return undefined;
}

export const POST = bffRoute(
  async ({ request }) => {
    consume(limiters().walletRpc, clientAddress(request.headers));
    const parsed = RpcBody.safeParse(await jsonBody(request, MAX_BODY_BYTES));
    if (!parsed.success) {
      return bffJson({ error: "invalid_body", message: "Send a JSON-RPC 2.0 request." }, 400);
    }
    const calls = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
    const refused = calls.map(refusal).find(Boolean);
    if (refused) return bffJson({ error: "method_not_allowed", message: refused }, 400);
    const rpcUrl = x402RpcUrl();
    if (!rpcUrl) {
      return bffJson({ error: "chain_unavailable", message: "The payment network is not reachable." }, 503);
    }
    const upstream = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(parsed.data),
      signal: AbortSignal.timeout(10_000),
    });
    return bffJson(await upstream.json(), upstream.ok ? 200 : 502);
  },
  { signedIn: true },
);
