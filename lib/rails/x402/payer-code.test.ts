import { authorizationTypes } from "@x402/evm";
import {
  createPublicClient,
  type Hex,
  http,
  serializeErc6492Signature,
  type TypedDataDefinition,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChain, startAnvil } from "@/lib/demo-chain/anvil";
import { deployTestSmartWallet, gasUsedByCall, NEVER_BURNS } from "@/lib/demo-chain/test-smart-wallet";
import { checkPayerSignature, SIGNATURE_CHECK_GAS } from "./payer-code";

const owner = privateKeyToAccount(generatePrivateKey());
let chain: LocalChain;
let honest: Hex;
let burner: Hex;
let honestUnderCap: Hex;
/** Every JSON-RPC request the checks sent, as sent. */
let sent: { method: string; params: unknown[] }[] = [];

/** A client like the rail's: no retries, since a failed signature check is an answer. */
const client = () =>
  createPublicClient({
    transport: http(chain.rpcUrl, {
      retryCount: 0,
      onFetchRequest: async (request) => {
        const body = JSON.parse(await request.clone().text());
        sent.push(...(Array.isArray(body) ? body : [body]));
      },
    }),
  });

const typedData = (from: Hex): TypedDataDefinition => ({
  domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: `0x${"33".repeat(20)}` },
  types: authorizationTypes,
  primaryType: "TransferWithAuthorization",
  message: {
    from,
    to: `0x${"44".repeat(20)}`,
    value: 25_000_000n,
    validAfter: 0n,
    validBefore: 2n ** 40n,
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  },
});

async function signedBy(account: ReturnType<typeof privateKeyToAccount>, from: Hex) {
  const data = typedData(from);
  return {
    data,
    signature: await account.signTypedData(data as Parameters<typeof account.signTypedData>[0]),
  };
}

beforeAll(async () => {
  chain = await startAnvil({ chainId: 8453 });
  [honest, burner, honestUnderCap] = await Promise.all([
    deployTestSmartWallet(chain.rpcUrl, owner.address, NEVER_BURNS),
    deployTestSmartWallet(chain.rpcUrl, owner.address, 0n),
    deployTestSmartWallet(chain.rpcUrl, owner.address, 1_000_000n),
  ]);
}, 60_000);

afterAll(async () => {
  await chain?.stop();
});

describe("checkPayerSignature", () => {
  it("an ordinary wallet's signature is checked offline", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    const { data, signature } = await signedBy(payer, payer.address);
    const offline = createPublicClient({ transport: http("http://127.0.0.1:1") });
    expect(await checkPayerSignature(offline, payer.address, data, signature)).toBe("valid");
    const { signature: other } = await signedBy(owner, payer.address);
    expect(await checkPayerSignature(client(), payer.address, data, other)).toBe("invalid");
  });

  it("a contract wallet answers through ERC-1271 with an explicit gas limit", async () => {
    sent = [];
    const { data, signature } = await signedBy(owner, honest);
    expect(await checkPayerSignature(client(), honest, data, signature)).toBe("valid");
    const stranger = privateKeyToAccount(generatePrivateKey());
    const { signature: forged } = await signedBy(stranger, honest);
    expect(await checkPayerSignature(client(), honest, data, forged)).toBe("invalid");
    const calls = sent.filter((request) => request.method === "eth_call");
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(BigInt((call.params[0] as { gas: Hex }).gas)).toBe(SIGNATURE_CHECK_GAS);
    }
  });

  it("a wallet whose check burns all its gas is refused within the limit, in well under a second", async () => {
    sent = [];
    const { data, signature } = await signedBy(owner, burner);
    const started = performance.now();
    expect(await checkPayerSignature(client(), burner, data, signature)).toBe("invalid");
    expect(performance.now() - started).toBeLessThan(1_000);
    const [call, ...others] = sent.filter((request) => request.method === "eth_call");
    expect(others).toEqual([]);
    expect(await gasUsedByCall(chain.rpcUrl, call?.params[0])).toBe(SIGNATURE_CHECK_GAS);
  });

  it("a wallet honest only under a gas cap is judged under the cap", async () => {
    const { data, signature } = await signedBy(owner, honestUnderCap);
    expect(await checkPayerSignature(client(), honestUnderCap, data, signature)).toBe("valid");
  });

  it("ERC-6492: a deployed wallet's inner signature counts; an undeployed wallet is refused unrun", async () => {
    const { data, signature } = await signedBy(owner, honest);
    const factory: Hex = `0x${"55".repeat(20)}`;
    const wrapped = serializeErc6492Signature({ address: factory, data: "0xdeadbeef", signature });
    expect(await checkPayerSignature(client(), honest, data, wrapped)).toBe("valid");

    sent = [];
    const undeployed = privateKeyToAccount(generatePrivateKey()).address;
    const counterfactual = await signedBy(owner, undeployed);
    const wrappedUndeployed = serializeErc6492Signature({
      address: factory,
      data: "0xdeadbeef",
      signature: counterfactual.signature,
    });
    expect(await checkPayerSignature(client(), undeployed, counterfactual.data, wrappedUndeployed)).toBe(
      "undeployed_wallet",
    );
    expect(sent.map((request) => request.method)).toEqual(["eth_getCode"]);
  });

  it("a node that cannot answer decides nothing: the check throws", async () => {
    const { data, signature } = await signedBy(owner, honest);
    const unreachable = createPublicClient({ transport: http("http://127.0.0.1:1", { retryCount: 0 }) });
    await expect(checkPayerSignature(unreachable, honest, data, signature)).rejects.toThrow();
  });
});
