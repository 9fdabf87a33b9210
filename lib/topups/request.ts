import "server-only";
import { ApiError, badRequest } from "@/lib/api/errors";
import type { CreateTopupRequest } from "@/lib/api/schemas/topups";
import { VALIDATION_MESSAGES } from "@/lib/api/validation-messages";
import { config } from "@/lib/config/env";
import { requestOrigin } from "@/lib/http/origin";
import { fingerprint, type StoredResponse, withIdempotency } from "@/lib/idempotency/idempotency";
import { coinFacts, isDepositCoin, X402_COIN } from "@/lib/rails/registry";
import { limiters, type QuotaOutcome, withQuotas } from "@/lib/rate-limit/limits";
import {
  payTopupWithX402,
  type X402Version,
  x402Challenge,
  x402ChallengeHeaders,
  x402Requirement,
} from "@/lib/topups/x402";
import { usdToCents } from "@/lib/util/cents";
import { createDepositTopup } from "./deposit";

/**
 * The absolute URL of POST /topups, as x402 names the resource being paid for: PUBLIC_BASE_URL, else the
 * origin the client called when its Host is a plain host[:port] (the URL only goes back to that same
 * client, unsigned), else this app's loopback address. A malformed Host never reaches the challenge.
 */
export function topupResource(request: Request): string {
  return paidResource(request, "/api/v1/topups");
}

/** The absolute URL of `path` on this service, as x402 names what is paid for (see topupResource). */
export function paidResource(request: Request, path: string): string {
  const { publicBaseUrl, port } = config();
  const base = publicBaseUrl?.replace(/\/+$/, "") ?? requestOrigin(request) ?? `http://127.0.0.1:${port}`;
  return `${base}${path}`;
}

/**
 * Whether an x402 attempt uses the attempt quota: a refusal of the payment itself does (it cost chain reads
 * and pays nothing). A payment credited or answered again, one still being settled, and a failure on our
 * side (5xx, the chain unreachable) do not, so a client retrying its own payment is never locked out.
 */
function x402AttemptCounts(outcome: QuotaOutcome<unknown>): boolean {
  if (!("error" in outcome)) return false;
  const { error } = outcome;
  return error instanceof ApiError && error.status < 500 && error.code !== "payment_in_progress";
}

/**
 * Runs one x402 payment attempt (a top-up, a renewal, an order's check) under the attempt quota, per account and
 * per client address: each costs chain reads.
 */
export function withX402Attempts<T>(
  accountId: number,
  client: string,
  attempt: () => Promise<T>,
): Promise<T> {
  return withQuotas(
    limiters().x402Attempts,
    [`account:${accountId}`, `address:${client}`],
    attempt,
    x402AttemptCounts,
  );
}

/**
 * POST /topups: a classic coin gets a deposit (201); USDC on Base, or `X-Payment-Mode: x402`, gets the
 * x402 challenge (402) until the request comes back with `X-PAYMENT` (v1) or `PAYMENT-SIGNATURE` (v2), which
 * is then settled (201).
 * An Idempotency-Key makes a retried request return the first outcome instead of a second top-up.
 */
export async function requestTopup(input: {
  accountId: number;
  body: CreateTopupRequest;
  paymentMode: string | null;
  /** The payment and the wire version of the header that carried it (`X-PAYMENT` v1, `PAYMENT-SIGNATURE` v2). */
  payment: { header: string; version: X402Version } | null;
  idempotencyKey: string | undefined;
  resource: string;
  /** The client's address, which x402 attempts are limited by beside the account. */
  client: string;
}): Promise<StoredResponse> {
  const amountCents = usdToCents(input.body.amount);
  if (amountCents === undefined) throw badRequest("invalid_amount", VALIDATION_MESSAGES.invalid_amount);
  const x402 = coinFacts(input.body.coin)?.method === "x402" || input.paymentMode?.toLowerCase() === "x402";
  if (x402 && !input.payment) {
    // One challenge for both wire versions: the v1 body and the v2 PAYMENT-REQUIRED header.
    const requirement = x402Requirement(amountCents, input.resource);
    return { status: 402, body: x402Challenge(requirement), headers: x402ChallengeHeaders(requirement) };
  }
  const coin = x402 ? X402_COIN.code : input.body.coin;
  return withIdempotency(
    {
      accountId: input.accountId,
      operation: "POST /topups",
      key: input.idempotencyKey,
      fingerprint: fingerprint({ amountCents, coin }),
    },
    async () => {
      if (x402) {
        // Each attempt costs chain reads: limited per account and per address before any of them.
        const paid = await withX402Attempts(input.accountId, input.client, () =>
          payTopupWithX402({
            accountId: input.accountId,
            amountCents,
            header: input.payment?.header ?? "",
            version: input.payment?.version ?? 1,
            resource: input.resource,
          }),
        );
        return {
          status: paid.status,
          body: paid.topup,
          headers: { [paid.paymentResponse.header]: paid.paymentResponse.value },
        };
      }
      if (!isDepositCoin(coin)) throw badRequest("invalid_coin", `Unknown coin ${coin}.`);
      return { status: 201, body: await createDepositTopup(input.accountId, amountCents, coin) };
    },
  );
}

/** The x402 payment header: `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1); both at once is ambiguous. */
export function readPaymentHeader(headers: Headers): { header: string; version: X402Version } | null {
  const v2 = headers.get("payment-signature");
  const v1 = headers.get("x-payment");
  if (v2 && v1) {
    throw badRequest(
      "invalid_payment",
      "Send either PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (v1), not both.",
    );
  }
  if (v2) return { header: v2, version: 2 };
  return v1 ? { header: v1, version: 1 } : null;
}
