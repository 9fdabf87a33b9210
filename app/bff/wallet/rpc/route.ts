import { z } from "zod";
import { bffJson, bffRoute } from "@/lib/session/bff";
import { x402RpcUrl } from "@/lib/x402/rail";

/**
 * Read-only JSON-RPC of the chain x402 payments settle on, for the wallet page's reads (chain id, USDC
 * balance). Wallets sign in the browser; nothing that sends or signs passes here, and the node's URL
 * (which may carry a provider key) stays on the server.
 */
const READ_METHODS = new Set([
  "eth_chainId",
  "net_version",
  "eth_blockNumber",
  "eth_call",
  "eth_getBalance",
  "eth_getCode",
  "eth_getTransactionCount",
  "eth_getBlockByNumber",
  "eth_getTransactionReceipt",
  "eth_getTransactionByHash",
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_feeHistory",
  "eth_estimateGas",
]);

const RpcCall = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.number(), z.string(), z.null()]).optional(),
  method: z.string().max(64),
  params: z.array(z.unknown()).max(8).optional(),
});
const RpcBody = z.union([RpcCall, z.array(RpcCall).min(1).max(20)]);

export const POST = bffRoute(
  async ({ request }) => {
    const parsed = RpcBody.safeParse(await request.json().catch(() => undefined));
    if (!parsed.success) {
      return bffJson({ error: "invalid_body", message: "Send a JSON-RPC 2.0 request." }, 400);
    }
    const calls = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
    const refused = calls.find((call) => !READ_METHODS.has(call.method));
    if (refused) {
      return bffJson({ error: "method_not_allowed", message: `${refused.method} is not a read.` }, 400);
    }
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
