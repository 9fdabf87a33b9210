import { UserRejectedRequestError } from "viem";
import { describe, expect, it } from "vitest";
import { BffError } from "@/lib/dashboard/queries/bff-fetch";
import { isStillSettling, isUserRejection, settlementFailure } from "./wallet-failures";

const refused = (code: string, message: string) => new BffError(402, code, message, { error: code, message });

describe("wallet payment failures", () => {
  it("recognises a refusal in the wallet however deeply it is wrapped", () => {
    expect(isUserRejection(new UserRejectedRequestError(new Error("no")))).toBe(true);
    expect(isUserRejection(Object.assign(new Error("x"), { cause: { code: 4001 } }))).toBe(true);
    expect(isUserRejection(new Error("timeout"))).toBe(false);
  });

  it("names an expired authorization, asking for a new signature", () => {
    expect(settlementFailure(refused("payment_expired", "The authorization has expired."))).toEqual({
      failure: "expired",
      message: "The authorization expired before it reached the service. Nothing was paid; sign a new one.",
    });
  });

  it("passes on why the chain or the service refused the payment", () => {
    expect(settlementFailure(refused("payment_failed", "Could not settle."))).toEqual({
      failure: "settlement",
      message: "The payment was not settled: Could not settle. Nothing was charged.",
    });
    expect(settlementFailure(new TypeError("fetch failed")).failure).toBe("other");
  });

  it("keeps a payment that is still settling apart, so it is re-sent rather than signed again", () => {
    for (const code of ["payment_pending", "payment_in_progress", "payment_network_unavailable"]) {
      const error = new BffError(503, code, "Not yet.", { error: code });
      expect(isStillSettling(error)).toBe(true);
      expect(settlementFailure(error).failure).toBe("unsettled");
      expect(settlementFailure(error).message).toContain("Do not sign again");
    }
    expect(isStillSettling(refused("payment_failed", "No."))).toBe(false);
  });
});
