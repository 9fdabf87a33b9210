import type { X402Config } from "@/lib/config/env";
import type { X402Requirement } from "@/lib/schemas/topups";

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
