/**
 * What the dashboard's wallet RPC (`/bff/wallet/rpc`) lets through to the settlement chain's node: exactly the
 * wallet page's reads (the chain id, the block number, and USDC's `balanceOf`), each rebuilt from its checked
 * fields so nothing else reaches the node. `eth_call` with a state override, a block override, another
 * block than `latest` or a large gas allowance would let anyone run their own EVM code on the node that
 * settlements need (one such call kept it busy for minutes), so it is refused.
 */
import { getAddress, hexToBigInt, isAddress, numberToHex } from "viem";
import { z } from "zod";

/** More than `balanceOf` costs on USDC (a proxy and a storage read, about 10k gas), far below a node's cap. */
export const WALLET_CALL_GAS_CAP = 100_000n;

/** `balanceOf(address)`: the selector and one ABI-encoded address (12 zero bytes, then 20 bytes). */
const BALANCE_OF_CALLDATA = /^0x70a08231(?:00){12}[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x(?:0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/;
const PLAIN_READS = new Set(["eth_chainId", "net_version", "eth_blockNumber"]);
const CALL_FIELDS = new Set(["to", "data", "input", "from", "gas"]);

export const RpcCallSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.number(), z.string().max(64), z.null()]).optional(),
  method: z.string().max(64),
  params: z.array(z.unknown()).max(3).optional(),
});
export const RpcBodySchema = z.union([RpcCallSchema, z.array(RpcCallSchema).min(1).max(3)]);
export type RpcCall = z.infer<typeof RpcCallSchema>;

export type WalletRpcCheck = { forward: RpcCall } | { refusal: string };

const refuse = (refusal: string): WalletRpcCheck => ({ refusal });

/** The one call object `eth_call` may carry: USDC's balanceOf, with at most the gas cap. */
function checkCall(call: unknown, usdc: `0x${string}`): { to: string; data: string; gas: bigint } | string {
  if (typeof call !== "object" || call === null || Array.isArray(call))
    return "eth_call needs a call object.";
  const fields = call as Record<string, unknown>;
  const extra = Object.keys(fields).find((key) => !CALL_FIELDS.has(key));
  if (extra !== undefined) return `eth_call does not take "${extra.slice(0, 32)}" here.`;
  const { to, from, gas } = fields;
  if (typeof to !== "string" || !isAddress(to, { strict: false }) || getAddress(to) !== getAddress(usdc)) {
    return "eth_call reaches the USDC contract only.";
  }
  if (from !== undefined && (typeof from !== "string" || !isAddress(from, { strict: false }))) {
    return "eth_call: from is not an address.";
  }
  const data = fields.data ?? fields.input;
  if (fields.data !== undefined && fields.input !== undefined && fields.data !== fields.input) {
    return "eth_call: data and input differ.";
  }
  if (typeof data !== "string" || !BALANCE_OF_CALLDATA.test(data)) {
    return "eth_call reads balanceOf(address) only.";
  }
  if (gas !== undefined) {
    if (typeof gas !== "string" || !QUANTITY.test(gas)) return "eth_call: gas is not a hex quantity.";
    if (hexToBigInt(gas as `0x${string}`) > WALLET_CALL_GAS_CAP) {
      return `eth_call: gas is capped at ${WALLET_CALL_GAS_CAP}.`;
    }
  }
  return {
    to: getAddress(to),
    data,
    gas: gas === undefined ? WALLET_CALL_GAS_CAP : hexToBigInt(gas as `0x${string}`),
  };
}

/** Whether `call` is one of the page's reads; if so, the request to send the node in its place. */
export function checkWalletRpcCall(call: RpcCall, usdc: `0x${string}`): WalletRpcCheck {
  const params = call.params ?? [];
  const base = { jsonrpc: "2.0" as const, ...(call.id !== undefined ? { id: call.id } : {}) };
  if (PLAIN_READS.has(call.method)) {
    if (params.length > 0) return refuse(`${call.method} takes no parameters.`);
    return { forward: { ...base, method: call.method, params: [] } };
  }
  if (call.method !== "eth_call") return refuse(`${call.method} is not one of the reads this page makes.`);
  if (params.length > 2) return refuse("eth_call takes no state or block overrides.");
  const block = params[1];
  if (block !== undefined && block !== "latest") return refuse('eth_call reads the "latest" block only.');
  const checked = checkCall(params[0], usdc);
  if (typeof checked === "string") return refuse(checked);
  const forwarded = { to: checked.to, data: checked.data, gas: numberToHex(checked.gas) };
  return { forward: { ...base, method: "eth_call", params: [forwarded, "latest"] } };
}

/** Every call of a body (one call or a batch) checked: the batch to forward, or the first refusal. */
export function checkWalletRpcBody(
  calls: RpcCall[],
  usdc: `0x${string}`,
): { forward: RpcCall[] } | { refusal: string } {
  const forward: RpcCall[] = [];
  for (const call of calls) {
    const checked = checkWalletRpcCall(call, usdc);
    if ("refusal" in checked) return checked;
    forward.push(checked.forward);
  }
  return { forward };
}
