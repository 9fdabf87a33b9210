/**
 * Decoding and the checks we make ourselves before any chain call: the payment must be exactly the one the
 * challenge asked for (amount, payee, network, time window), so a wrong payload costs no RPC and no gas.
 */

import { decodePaymentSignatureHeader } from "@x402/core/http";
import { getAddress, isAddress, isHex } from "viem";
import { z } from "zod";
import type { X402Requirement, X402RequirementV2 } from "./requirements";

const address = z.string().refine((value) => isAddress(value, { strict: false }), "not an address");
const uint = z.string().regex(/^\d{1,78}$/, "not a base-10 integer");

/** The EIP-3009 payload of the exact EVM scheme: the same shape in v1 and v2. */
const Eip3009PayloadSchema = z.object({
  signature: z.string().refine((value) => isHex(value) && value.length >= 132, "not a signature"),
  authorization: z.object({
    from: address,
    to: address,
    value: uint,
    validAfter: uint,
    validBefore: uint,
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "not a 32-byte nonce"),
  }),
});

const ExactEvmPayloadV1Schema = z.object({
  x402Version: z.literal(1),
  scheme: z.string(),
  network: z.string(),
  payload: Eip3009PayloadSchema,
});

const ExactEvmPayloadV2Schema = z.object({
  x402Version: z.literal(2),
  accepted: z.object({
    scheme: z.string(),
    network: z.string(),
    amount: z.string(),
    asset: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }),
  payload: Eip3009PayloadSchema,
});

export type ExactEvmPayloadV2 = z.infer<typeof ExactEvmPayloadV2Schema>;

export type ExactEvmPayloadV1 = z.infer<typeof ExactEvmPayloadV1Schema>;

export class PaymentHeaderError extends Error {}

function decodeWith<T>(header: string, name: string, version: number, schema: z.ZodType<T>): T {
  if (header.length > 8192) throw new PaymentHeaderError(`${name} is too long.`);
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header.trim());
  } catch {
    throw new PaymentHeaderError(`${name} is not base64-encoded JSON.`);
  }
  const parsed = schema.safeParse(decoded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PaymentHeaderError(
      `${name} is not an x402 v${version} exact EVM payment: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid"}.`,
    );
  }
  return parsed.data;
}

/** Parses the `X-PAYMENT` header: base64 of the v1 JSON payload of the exact EVM scheme. */
export function decodePaymentHeader(header: string): ExactEvmPayloadV1 {
  return decodeWith(header, "X-PAYMENT", 1, ExactEvmPayloadV1Schema);
}

/** Parses the `PAYMENT-SIGNATURE` header: base64 of the v2 JSON payload (with `accepted`). */
export function decodePaymentSignatureV2(header: string): ExactEvmPayloadV2 {
  return decodeWith(header, "PAYMENT-SIGNATURE", 2, ExactEvmPayloadV2Schema);
}

/**
 * The v2 `accepted` must be exactly what we offered (v2's exact rule: the amount matches exactly). On a
 * match the payment is the same EIP-3009 authorization as in v1, so it continues as one under our v1
 * network name: one authorization is one payment whichever header carried it.
 */
export function acceptedAsOffered(
  payment: ExactEvmPayloadV2,
  offered: X402RequirementV2,
  v1Network: string,
): { payment: ExactEvmPayloadV1 } | { rejection: PaymentRejection } {
  const { accepted } = payment;
  const sameAddress = (a: string, b: string) =>
    isAddress(a, { strict: false }) && getAddress(a) === getAddress(b);
  let rejection: PaymentRejection | undefined;
  if (accepted.scheme !== offered.scheme) {
    rejection = {
      code: "payment_scheme_mismatch",
      message: `Only the "${offered.scheme}" scheme is accepted.`,
    };
  } else if (accepted.network !== offered.network) {
    rejection = { code: "payment_network_mismatch", message: `Pay on the "${offered.network}" network.` };
  } else if (!sameAddress(accepted.payTo, offered.payTo)) {
    rejection = { code: "payment_recipient_mismatch", message: `The payment must pay ${offered.payTo}.` };
  } else if (accepted.amount !== offered.amount) {
    rejection = {
      code: "payment_amount_mismatch",
      message: `The payment must be for exactly ${offered.amount} USDC base units, as the top-up asks.`,
    };
  } else if (
    !sameAddress(accepted.asset, offered.asset) ||
    accepted.maxTimeoutSeconds !== offered.maxTimeoutSeconds ||
    accepted.extra?.name !== offered.extra.name ||
    accepted.extra?.version !== offered.extra.version
  ) {
    rejection = {
      code: "payment_requirements_mismatch",
      message: "`accepted` is not the payment requirement this challenge offered; pay the offered one.",
    };
  }
  if (rejection) return { rejection };
  return {
    payment: { x402Version: 1, scheme: accepted.scheme, network: v1Network, payload: payment.payload },
  };
}

/** Why the terms of a payment are refused, as the API's error codes name it. */
export type PaymentRejectionCode =
  | "payment_scheme_mismatch"
  | "payment_network_mismatch"
  | "payment_recipient_mismatch"
  | "payment_amount_mismatch"
  | "payment_requirements_mismatch"
  | "payment_expired"
  | "payment_not_yet_valid"
  | "payment_validity_too_long";

export type PaymentRejection = { code: PaymentRejectionCode; message: string };

/** Seconds of clock skew tolerated between the payer's clock and ours. */
const CLOCK_SKEW_SECONDS = 30n;
/** The chain must still accept the authorization when our transaction lands (the x402 facilitator rule). */
const MIN_REMAINING_SECONDS = 6n;

/** The terms of the payment: exactly the asked amount, to us, on our network, with our scheme. */
export function checkPaymentTerms(
  payment: ExactEvmPayloadV1,
  requirement: X402Requirement,
): PaymentRejection | undefined {
  const { authorization } = payment.payload;
  if (payment.scheme !== requirement.scheme) {
    return {
      code: "payment_scheme_mismatch",
      message: `Only the "${requirement.scheme}" scheme is accepted.`,
    };
  }
  if (payment.network !== requirement.network) {
    return { code: "payment_network_mismatch", message: `Pay on the "${requirement.network}" network.` };
  }
  if (getAddress(authorization.to) !== getAddress(requirement.payTo)) {
    return {
      code: "payment_recipient_mismatch",
      message: `The authorization must pay ${requirement.payTo}.`,
    };
  }
  if (authorization.value !== requirement.maxAmountRequired) {
    return {
      code: "payment_amount_mismatch",
      message: `The authorization must be for exactly ${requirement.maxAmountRequired} USDC base units, as the top-up asks.`,
    };
  }
  return undefined;
}

/**
 * The validity window, checked before we settle (not before looking the authorization up on chain: one
 * that was settled in time must still be credited when its answer is fetched after it expired).
 */
export function checkPaymentWindow(
  payment: ExactEvmPayloadV1,
  requirement: X402Requirement,
  nowSeconds: number,
): PaymentRejection | undefined {
  const { authorization } = payment.payload;
  const now = BigInt(nowSeconds);
  if (BigInt(authorization.validBefore) < now + MIN_REMAINING_SECONDS) {
    return { code: "payment_expired", message: "The authorization has expired; sign a new one." };
  }
  if (BigInt(authorization.validAfter) > now + CLOCK_SKEW_SECONDS) {
    return {
      code: "payment_not_yet_valid",
      message: "The authorization is not valid yet (validAfter is in the future).",
    };
  }
  if (BigInt(authorization.validBefore) > now + BigInt(requirement.maxTimeoutSeconds) + CLOCK_SKEW_SECONDS) {
    return {
      code: "payment_validity_too_long",
      message: `The authorization must expire within maxTimeoutSeconds (${requirement.maxTimeoutSeconds} s).`,
    };
  }
  return undefined;
}
