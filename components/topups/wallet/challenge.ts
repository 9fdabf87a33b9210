import { queryOptions } from "@tanstack/react-query";
import { BffError, bffFetch } from "@/lib/dashboard/queries/bff-fetch";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { X402Challenge, X402Requirement } from "@/lib/dashboard/wallet/authorization";
import { X402_COIN } from "@/lib/rails/registry";

/** The API's x402 challenge for this amount: what to sign, to whom, on which chain. */
export async function fetchChallenge(amountCents: number): Promise<X402Requirement> {
  try {
    await bffFetch("/bff/topups", {
      method: "POST",
      body: { amount: amountCents / 100, coin: X402_COIN.code },
    });
  } catch (error) {
    const challenge = error instanceof BffError ? (error.body as Partial<X402Challenge>) : undefined;
    if (error instanceof BffError && error.status === 402 && challenge?.accepts?.[0]) {
      return challenge.accepts[0];
    }
    throw error;
  }
  throw new Error("The service did not ask for a payment.");
}

/** The challenge the page opens with; `pay` asks afresh before it signs. */
export const challengeQuery = (amountCents: number) =>
  queryOptions({
    queryKey: queryKeys.x402Challenge(amountCents),
    queryFn: () => fetchChallenge(amountCents),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
