import { authorizationTypes } from "@x402/evm";
import { recoverTypedDataAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { checkPaymentTerms, checkPaymentWindow, decodePaymentHeader } from "../../rails/x402/payload";
import { topupRequirement } from "../../rails/x402/requirements";
import {
  authorizationTypedData,
  chainIdOf,
  paymentHeader,
  randomNonce,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
} from "./authorization";

const requirement = topupRequirement(
  {
    network: "base",
    usdc: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", name: "USD Coin", version: "2" },
    maxTimeoutSeconds: 300,
  },
  "0x2BCCcf425AC35bc15d9A9466e4f3ce0941fC2738",
  4250,
  "https://vps.example/api/v1/topups",
);

describe("the browser's x402 authorization", () => {
  it("signs exactly the challenge's terms, and the API's own checks accept the header", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const now = 1_800_000_000;
    const { authorization, typedData } = authorizationTypedData(requirement, account.address, now);
    expect(typedData.domain).toEqual({
      name: "USD Coin",
      version: "2",
      chainId: 8453,
      verifyingContract: requirement.asset,
    });
    expect(authorization.value).toBe("42500000");
    const signature = await account.signTypedData(typedData);
    expect(await recoverTypedDataAddress({ ...typedData, signature })).toBe(account.address);

    const decoded = decodePaymentHeader(paymentHeader(requirement, authorization, signature));
    expect(decoded.payload.authorization).toEqual(authorization);
    expect(decoded.payload.signature).toBe(signature);
    expect(checkPaymentTerms(decoded, requirement)).toBeUndefined();
    expect(checkPaymentWindow(decoded, requirement, now)).toBeUndefined();
    // The window the API enforces: expired once maxTimeoutSeconds have passed.
    expect(checkPaymentWindow(decoded, requirement, now + 300)?.code).toBe("payment_expired");
  });

  it("signs the same EIP-3009 types the server verifies with (@x402/evm)", () => {
    expect(TRANSFER_WITH_AUTHORIZATION_TYPES).toEqual(authorizationTypes);
  });

  it("uses a new random nonce for every authorization", () => {
    const nonces = new Set(Array.from({ length: 50 }, randomNonce));
    expect(nonces.size).toBe(50);
    for (const nonce of nonces) expect(nonce).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("knows the chain of each x402 network and refuses others", () => {
    expect(chainIdOf("base")).toBe(8453);
    expect(chainIdOf("base-sepolia")).toBe(84532);
    expect(() => chainIdOf("polygon")).toThrow(/unsupported/);
  });
});
