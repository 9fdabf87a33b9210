import type { X402Config } from "./config";

/** An x402 (v1) payment requirement: what to authorize, to whom, on which token (the API's `X402Requirement`). */
export type X402Requirement = {
  scheme: "exact";
  network: string;
  /** USDC in base units (6 decimals): exactly the amount to authorize. */
  maxAmountRequired: string;
  /** The URL being paid for. */
  resource: string;
  description: string;
  mimeType: string;
  payTo: string;
  maxTimeoutSeconds: number;
  /** The token contract. */
  asset: string;
  /** The token's EIP-712 domain name and version. */
  extra: { name: string; version: string };
};

/** USDC has 6 decimals: one cent is 10,000 base units, so USD amounts convert exactly. */
export const USDC_UNITS_PER_CENT = 10_000n;

export const centsToUsdcUnits = (cents: number): bigint => BigInt(cents) * USDC_UNITS_PER_CENT;

/** The one way to pay a top-up of `amountCents` with x402: exactly that much USDC, to our address. */
export function topupRequirement(
  settings: Pick<X402Config, "network" | "usdc" | "maxTimeoutSeconds">,
  payTo: `0x${string}`,
  amountCents: number,
  resource: string,
): X402Requirement {
  return {
    scheme: "exact",
    network: settings.network,
    maxAmountRequired: centsToUsdcUnits(amountCents).toString(),
    resource,
    description: `Top up the account balance by ${(amountCents / 100).toFixed(2)} USD`,
    mimeType: "application/json",
    payTo,
    maxTimeoutSeconds: settings.maxTimeoutSeconds,
    asset: settings.usdc.address,
    extra: { name: settings.usdc.name, version: settings.usdc.version },
  };
}

/** The v2 form of a requirement: CAIP-2 network, `amount`, and no resource fields (they move to the top). */
export type X402RequirementV2 = {
  scheme: "exact";
  network: `eip155:${number}`;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { name: string; version: string };
};

export const caip2Network = (chainId: number): `eip155:${number}` => `eip155:${chainId}`;

export function toV2Requirement(requirement: X402Requirement, chainId: number): X402RequirementV2 {
  return {
    scheme: requirement.scheme,
    network: caip2Network(chainId),
    amount: requirement.maxAmountRequired,
    asset: requirement.asset,
    payTo: requirement.payTo,
    maxTimeoutSeconds: requirement.maxTimeoutSeconds,
    extra: { name: requirement.extra.name, version: requirement.extra.version },
  };
}

/** The v2 `PAYMENT-REQUIRED` object for the same offer as the v1 body. */
export function paymentRequiredV2(requirement: X402Requirement, chainId: number, error?: string) {
  return {
    x402Version: 2 as const,
    ...(error ? { error } : {}),
    resource: {
      url: requirement.resource,
      description: requirement.description,
      mimeType: requirement.mimeType,
    },
    accepts: [toV2Requirement(requirement, chainId)],
  };
}
