import { randomBytes } from "node:crypto";
import { x402Client } from "@x402/core/client";
import { authorizationTypes } from "@x402/evm";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, createWalletClient, type Hex, http, type PrivateKeyAccount, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { expect, inject } from "vitest";
import { fundNativeBalance, mintTestToken, type TransferAuthorization } from "@/lib/demo-chain/test-token";
import { testTokenAbi } from "@/lib/demo-chain/test-token-abi";
import { type ApiResult, api } from "./helpers";

const chains = inject("chains");
export const base = createPublicClient({ transport: http(chains.baseRpc) });
const USDC_DOMAIN = {
  name: "USD Coin",
  version: "2",
  chainId: 8453,
  verifyingContract: chains.usdc,
} as const;

export const usdcBalance = (owner: `0x${string}`) =>
  base.readContract({ address: chains.usdc, abi: testTokenAbi, functionName: "balanceOf", args: [owner] });
export const relayerNonce = () => base.getTransactionCount({ address: chains.relayer });
export const balanceOf = async (key: string) => (await api("/account", { key })).body.balance_usd as number;

/**
 * `fetch` paying as the official client (@x402/fetch) configured for x402 v1 only, up to $2000 a payment. The 2.x
 * client reads PAYMENT-REQUIRED whenever a 402 carries it, so a v1-only one is shown the 402 as a v1 server (or
 * proxy) sends it: the body alone. Both-versions clients are in x402-v2.test.ts.
 */
export function v1PayingFetch(payer: PrivateKeyAccount): typeof fetch {
  const client = new x402Client()
    .registerV1("base", new ExactEvmSchemeV1(payer))
    .setSpendControls({ maxAmountPerPayment: "$2000" });
  const v1Only: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status !== 402) return response;
    const headers = new Headers(response.headers);
    headers.delete("payment-required");
    return new Response(await response.text(), { status: 402, headers });
  };
  return wrapFetchWithPayment(v1Only, client);
}

export async function fundedWallet(usdc: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await mintTestToken(chains.baseRpc, chains.usdc, account.address, usdc);
  return account;
}

export type AuthorizationOverrides = Partial<{
  /** The paying address when it is not the signer's own: a contract wallet the signer owns. */
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  signer: PrivateKeyAccount;
}>;

/** Signs an EIP-3009 authorization by hand with viem and encodes it as an x402 v1 X-PAYMENT header. */
export async function signPayment(
  payer: PrivateKeyAccount,
  units: bigint,
  overrides: AuthorizationOverrides = {},
) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const message: TransferAuthorization = {
    from: overrides.from ?? payer.address,
    to: overrides.to ?? chains.payTo,
    value: overrides.value ?? units,
    validAfter: overrides.validAfter ?? now - 600n,
    validBefore: overrides.validBefore ?? now + 240n,
    nonce: toHex(randomBytes(32)),
  };
  const signature = await (overrides.signer ?? payer).signTypedData({
    domain: USDC_DOMAIN,
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return { header: paymentHeader(message, signature), message, signature };
}

/** The x402 v1 X-PAYMENT header carrying an authorization and its signature. */
export function paymentHeader(message: TransferAuthorization, signature: Hex): string {
  const payload = {
    x402Version: 1,
    scheme: "exact",
    network: "base",
    payload: {
      signature,
      authorization: {
        ...message,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
      },
    },
  };
  return Buffer.from(JSON.stringify(payload)).toString("base64");
}

/**
 * Submits a signed authorization straight to the token, as anyone holding it can (a front-runner, the payer's
 * own wallet, or someone who copied it from a public transaction); resolves to the mined transaction's hash.
 */
export async function submitToToken(message: TransferAuthorization, signature: Hex): Promise<Hex> {
  const submitter = privateKeyToAccount(generatePrivateKey());
  await fundNativeBalance(chains.baseRpc, submitter.address, 10n ** 18n);
  const wallet = createWalletClient({ account: submitter, transport: http(chains.baseRpc) });
  const hash = await wallet.writeContract({
    chain: null,
    address: chains.usdc,
    abi: testTokenAbi,
    functionName: "transferWithAuthorization",
    args: [
      message.from,
      message.to,
      message.value,
      message.validAfter,
      message.validBefore,
      message.nonce,
      signature,
    ],
  });
  expect((await base.waitForTransactionReceipt({ hash, pollingInterval: 100 })).status).toBe("success");
  return hash;
}

type NodeState = { calls: number; held: number; recorded: { method?: string; params?: unknown[] }[] };

/** Commands the proxy between the app and the settlement node (e2e/support/rpc-proxy.ts). */
export async function settlementNode(command: Record<string, unknown> = {}): Promise<NodeState> {
  const response = await fetch(chains.baseProxyControl, { method: "POST", body: JSON.stringify(command) });
  return (await response.json()) as NodeState;
}

/** Waits until the proxy holds `count` calls of the app's. */
export async function untilHeld(count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await settlementNode()).held < count) {
    if (Date.now() > deadline) throw new Error(`the app did not reach the held call ${count} times`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const payTopup = (
  key: string,
  amount: number,
  header: string,
  extra: Record<string, string> = {},
  ip?: string,
) =>
  api("/topups", {
    method: "POST",
    key,
    ip,
    body: { amount, coin: "USDCBASE" },
    headers: { "x-payment": header, ...extra },
  });

/** What our challenge offers in v2 for `units`, as a client would copy it into `accepted`. */
export const offeredV2 = (units: bigint) => ({
  scheme: "exact",
  network: "eip155:8453",
  amount: units.toString(),
  asset: chains.usdc,
  payTo: chains.payTo,
  maxTimeoutSeconds: 300,
  extra: { name: "USD Coin", version: "2" },
});

/** The v2 `PAYMENT-SIGNATURE` header for an authorization signed by `signPayment`. */
export function v2Header(
  signed: Awaited<ReturnType<typeof signPayment>>,
  accepted: Record<string, unknown>,
): string {
  const { payload } = JSON.parse(Buffer.from(signed.header, "base64").toString()) as { payload: unknown };
  return Buffer.from(JSON.stringify({ x402Version: 2, accepted, payload })).toString("base64");
}

/** Signs by hand and encodes as v2, `accepted` being the offer unless overridden. */
export async function signPaymentV2(
  payer: PrivateKeyAccount,
  units: bigint,
  overrides: AuthorizationOverrides = {},
  accepted: Record<string, unknown> = {},
) {
  const signed = await signPayment(payer, units, overrides);
  return {
    ...signed,
    v1Header: signed.header,
    header: v2Header(signed, { ...offeredV2(units), ...accepted }),
  };
}

export const payTopupV2 = (
  key: string,
  amount: number,
  header: string,
  extra: Record<string, string> = {},
  ip?: string,
) =>
  api("/topups", {
    method: "POST",
    key,
    ip,
    body: { amount, coin: "USDCBASE" },
    headers: { "payment-signature": header, ...extra },
  });

/**
 * Sends payments and, once the app has claimed every one of their authorizations (it is held at its first
 * read of the payer's code, inside verification, which comes after the claim), runs `meanwhile`: typically
 * someone else submitting the authorizations first. Each payment's credit from the chain (its log search)
 * is then let through in the order given, and its answer awaited before the next.
 */
export async function payAfterClaims(
  payments: { nonce: Hex; send: () => Promise<ApiResult> }[],
  meanwhile: () => Promise<unknown>,
): Promise<ApiResult[]> {
  await settlementNode({ hold: { method: "eth_getCode" } });
  await settlementNode({ hold: { method: "eth_getLogs" } });
  try {
    const answers = payments.map((payment) => payment.send());
    await untilHeld(payments.length);
    await meanwhile();
    await settlementNode({ release: { method: "eth_getCode" } });
    const results: ApiResult[] = [];
    for (const [index, payment] of payments.entries()) {
      await untilHeld(payments.length - index);
      await settlementNode({ release: { method: "eth_getLogs", text: payment.nonce.slice(2) } });
      results.push(await (answers[index] as Promise<ApiResult>));
    }
    return results;
  } finally {
    await settlementNode({ release: {} });
  }
}
