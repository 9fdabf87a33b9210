/**
 * The payer's side of an x402 v1 payment, for the browser: the EIP-3009 authorization to sign for exactly
 * what a challenge asks, and the X-PAYMENT header that carries it back. No server code here.
 */
import { bytesToHex } from "viem";
import type { Schemas } from "@/lib/dashboard/queries/types";

/** The challenge and its requirement as the API's OpenAPI document describes them. */
export type X402Challenge = Schemas["X402Requirements"];
export type X402Requirement = Schemas["X402Requirement"];

export type Hex = `0x${string}`;

/** x402 v1 names its networks; EIP-712 needs the chain id. */
const CHAIN_IDS: Record<string, number> = { base: 8453, "base-sepolia": 84532 };

export function chainIdOf(network: string): number {
  const id = CHAIN_IDS[network];
  if (id === undefined) throw new Error(`unsupported x402 network: ${network}`);
  return id;
}

/** EIP-3009's typed-data types, kept here so the browser need not load @x402/evm (a test holds them equal). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** Seconds the authorization is back-dated, so a payer's clock a little ahead of the chain still works. */
const VALID_AFTER_SLACK_SECONDS = 600;

/** A fresh random 32-byte nonce: every signature is a new authorization. */
export const randomNonce = (): Hex => bytesToHex(crypto.getRandomValues(new Uint8Array(32)));

/**
 * The typed data to sign: a TransferWithAuthorization of exactly `maxAmountRequired` to `payTo`, valid
 * from ten minutes ago until `maxTimeoutSeconds` from now, under the token's own EIP-712 domain.
 */
export function authorizationTypedData(
  requirement: X402Requirement,
  from: Hex,
  nowSeconds: number,
  nonce: Hex = randomNonce(),
) {
  const authorization = {
    from,
    to: requirement.payTo as Hex,
    value: requirement.maxAmountRequired,
    validAfter: String(nowSeconds - VALID_AFTER_SLACK_SECONDS),
    validBefore: String(nowSeconds + requirement.maxTimeoutSeconds),
    nonce,
  };
  return {
    authorization,
    typedData: {
      domain: {
        name: requirement.extra.name,
        version: requirement.extra.version,
        chainId: chainIdOf(requirement.network),
        verifyingContract: requirement.asset as Hex,
      },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: "TransferWithAuthorization" as const,
      message: {
        from: authorization.from,
        to: authorization.to,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce,
      },
    },
  };
}

export type SignedAuthorization = ReturnType<typeof authorizationTypedData>["authorization"];

/** The X-PAYMENT header: base64 of the x402 v1 payload of the exact EVM scheme. */
export function paymentHeader(
  requirement: X402Requirement,
  authorization: SignedAuthorization,
  signature: Hex,
): string {
  const payload = {
    x402Version: 1,
    scheme: requirement.scheme,
    network: requirement.network,
    payload: { signature, authorization },
  };
  return btoa(JSON.stringify(payload));
}
