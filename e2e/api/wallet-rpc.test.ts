/**
 * The dashboard's wallet RPC forwards the wallet page's reads to the settlement chain's node and nothing
 * else: no code of the caller's own (state overrides), no other block, no large gas, no other contract
 * call. A refused request never reaches the node.
 */
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { mintTestToken } from "@/lib/demo-chain/test-token";
import { randomIp } from "./helpers";

const appUrl = () => inject("baseUrl");
const chains = inject("chains");

/** Code that answers every call with 2^255: what a state override would make "USDC" say. */
const FAKE_CODE = `0x7f80${"00".repeat(31)}60005260206000f3`;
const FAKE_RESULT = `0x80${"00".repeat(31)}`;

/** A fresh address holding test USDC (minted before the tests). */
const holder = privateKeyToAddress(generatePrivateKey());
let cookie: string;

async function rpc(body: unknown) {
  const response = await fetch(`${appUrl()}/bff/wallet/rpc`, {
    method: "POST",
    headers: {
      origin: appUrl(),
      cookie,
      "content-type": "application/json",
      "x-forwarded-for": randomIp(),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** How many JSON-RPC calls reached the settlement node so far. */
const nodeCalls = async () =>
  ((await (await fetch(chains.baseProxyControl, { method: "POST", body: "{}" })).json()) as { calls: number })
    .calls;

const balanceOfData = (owner: `0x${string}`) => `0x70a08231${"00".repeat(12)}${owner.slice(2).toLowerCase()}`;
const balanceCall = (extra: Record<string, unknown> = {}, rest: unknown[] = ["latest"]) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "eth_call",
  params: [{ to: chains.usdc, data: balanceOfData(holder), ...extra }, ...rest],
});

beforeAll(async () => {
  const signUp = await fetch(`${appUrl()}/bff/sign-up`, {
    method: "POST",
    headers: { origin: appUrl(), "x-forwarded-for": randomIp() },
  });
  cookie = (signUp.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  await mintTestToken(chains.baseRpc, chains.usdc, holder, 12_340_000n);
});

describe("the wallet RPC", () => {
  it("answers the page's reads: chain id, block number and the USDC balance", async () => {
    const answered = await rpc([
      { jsonrpc: "2.0", id: 1, method: "eth_chainId" },
      { jsonrpc: "2.0", id: 2, method: "eth_blockNumber", params: [] },
      { ...balanceCall(), id: 3 },
    ]);
    expect(answered.status).toBe(200);
    const results = answered.body as unknown as { id: number; result: string }[];
    expect(results.find((r) => r.id === 1)?.result).toBe("0x2105");
    expect(BigInt(results.find((r) => r.id === 3)?.result ?? "0x0")).toBe(12_340_000n);
    // Without a block tag, as some clients send it, it reads latest.
    const untagged = await rpc(balanceCall({}, []));
    expect(BigInt(String(untagged.body.result))).toBe(12_340_000n);
  });

  it.each([
    [
      "a state override that replaces USDC's code",
      balanceCall({}, ["latest", { [chains.usdc]: { code: FAKE_CODE } }]),
    ],
    ["a block override", balanceCall({}, ["latest", {}, { number: "0x1" }])],
    ["an old block", balanceCall({}, ["0x0"])],
    ["the pending block", balanceCall({}, ["pending"])],
    ["a block hash", balanceCall({}, [{ blockHash: `0x${"11".repeat(32)}` }])],
    ["30M gas", balanceCall({ gas: "0x1c9c380" })],
    ["a value", balanceCall({ value: "0x1" })],
    [
      "another USDC function",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "eth_call",
        params: [{ to: chains.usdc, data: "0x18160ddd" }, "latest"],
      },
    ],
    ["a parameter on a plain read", { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [{}] }],
  ])("refuses %s with 400, and the node never sees it", async (_name, body) => {
    const before = await nodeCalls();
    const refused = await rpc(body);
    expect(refused.status).toBe(400);
    // A fourth parameter is refused by the envelope's own bound already.
    expect(["method_not_allowed", "invalid_body"]).toContain(refused.body.error);
    expect(typeof refused.body.message).toBe("string");
    expect(refused.body.result).toBeUndefined();
    expect(JSON.stringify(refused.body)).not.toContain(FAKE_RESULT.slice(2));
    expect(await nodeCalls()).toBe(before);
  });
});
