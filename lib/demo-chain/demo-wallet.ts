import "server-only";
import { authorizationTypes } from "@x402/evm";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { TOPUP_MAX_CENTS } from "@/lib/catalog/topup-limits";
import { config } from "@/lib/config/env";
import { x402Settings } from "@/lib/rails/x402/config";
import type { Hex } from "../dashboard/wallet/authorization";
import { centsToUsdcUnits } from "../rails/x402/requirements";

/**
 * The demo wallet: an account on the demo's own local chain, funded with test USDC at each start. It
 * exists only in demo mode with the local chain (no X402_RPC_URL), and its key never leaves the server.
 */
export function demoWalletAddress(): Hex | undefined {
  const x402 = x402Settings();
  if (config().mode !== "demo" || !x402.demo || x402.rpcUrl) return undefined;
  return privateKeyToAccount(x402.demo.chainWalletKey).address;
}

export type DemoAuthorizationRequest = {
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
};

/** Seconds of slack over maxTimeoutSeconds, as the API allows between clocks. */
const CLOCK_SKEW_SECONDS = 30;

/**
 * Signs a USDC TransferWithAuthorization from the demo wallet, but only one that could pay a top-up of
 * this service: to our x402 address, within the top-up limits, valid no longer than a challenge allows.
 * Returns the signature, or why it was refused.
 */
export async function signDemoAuthorization(
  request: DemoAuthorizationRequest,
  nowSeconds: number,
): Promise<{ from: Hex; signature: Hex } | { refused: string; noWallet?: true }> {
  const x402 = x402Settings();
  const address = demoWalletAddress();
  if (!address || !x402.demo) return { refused: "There is no demo wallet on this service.", noWallet: true };
  if (!x402.payTo || getAddress(request.to) !== getAddress(x402.payTo)) {
    return { refused: "The demo wallet pays this service's top-ups only." };
  }
  const value = BigInt(request.value);
  if (value <= 0n || value > centsToUsdcUnits(TOPUP_MAX_CENTS)) {
    return { refused: "The amount is outside the top-up limits." };
  }
  if (Number(request.validBefore) > nowSeconds + x402.maxTimeoutSeconds + CLOCK_SKEW_SECONDS) {
    return { refused: "The authorization would stay valid longer than a top-up allows." };
  }
  const account = privateKeyToAccount(x402.demo.chainWalletKey);
  const signature = await account.signTypedData({
    domain: {
      name: x402.usdc.name,
      version: x402.usdc.version,
      chainId: x402.chainId,
      verifyingContract: x402.usdc.address,
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      from: address,
      to: getAddress(request.to),
      value,
      validAfter: BigInt(request.validAfter),
      validBefore: BigInt(request.validBefore),
      nonce: request.nonce,
    },
  });
  return { from: address, signature };
}
