import { describe, expect, it } from "vitest";
import {
  creditedPartText,
  decimalShortfall,
  depositPhase,
  formatRemaining,
  halfOf,
  isFinalStatus,
  parseTopupAmount,
} from "./view";

const pending = {
  status: "pending" as const,
  deposit_amount: "0.00051547",
  received_amount: "0",
  confirmed_amount: "0",
};

describe("depositPhase", () => {
  it("waits until something arrives", () => {
    expect(depositPhase(pending)).toEqual({ phase: "waiting" });
  });
  it("names what is missing after a partial payment", () => {
    expect(depositPhase({ ...pending, received_amount: "0.0002" })).toEqual({
      phase: "partial",
      missing: "0.00031547",
    });
  });
  it("is confirming once the full amount (or more) is seen", () => {
    expect(depositPhase({ ...pending, received_amount: "0.00051547" }).phase).toBe("confirming");
    expect(depositPhase({ ...pending, received_amount: "0.001" }).phase).toBe("confirming");
  });
  it("follows the final statuses", () => {
    expect(depositPhase({ ...pending, status: "completed" }).phase).toBe("completed");
    expect(depositPhase({ ...pending, status: "expired", received_amount: "0.0001" }).phase).toBe("expired");
    expect(depositPhase({ ...pending, status: "cancelled" }).phase).toBe("cancelled");
    expect(isFinalStatus("pending")).toBe(false);
    expect(isFinalStatus("expired")).toBe(true);
  });
});

describe("decimalShortfall", () => {
  it("subtracts decimal strings exactly and never goes below zero", () => {
    expect(decimalShortfall("25", "24.99")).toBe("0.01");
    expect(decimalShortfall("0.1", "0.3")).toBe("0");
    expect(decimalShortfall("1.000000000000000001", "1")).toBe("0.000000000000000001");
  });
});

describe("halfOf", () => {
  it("halves at the amount's own precision, rounding down", () => {
    expect(halfOf("0.00051547")).toBe("0.00025773");
    expect(halfOf("25")).toBe("12");
    expect(halfOf("0.00000001")).toBe("0");
  });
});

describe("parseTopupAmount", () => {
  it("accepts 25 to 2000 USD in whole cents, as the API does", () => {
    expect(parseTopupAmount("25")).toEqual({ cents: 2500 });
    expect(parseTopupAmount("$42.5")).toEqual({ cents: 4250 });
    expect(parseTopupAmount("2000.00")).toEqual({ cents: 200000 });
  });
  it("refuses amounts out of range, finer than a cent, or not numbers", () => {
    expect(parseTopupAmount("24.99")).toHaveProperty("error");
    expect(parseTopupAmount("2000.01")).toHaveProperty("error");
    expect(parseTopupAmount("30.001")).toEqual({ error: "Use whole cents (at most two decimals)." });
    expect(parseTopupAmount("")).toHaveProperty("error");
    expect(parseTopupAmount("1e3")).toHaveProperty("error");
    expect(parseTopupAmount("-50")).toHaveProperty("error");
  });
});

describe("formatRemaining", () => {
  it("counts down in m:ss, with hours when needed, never negative", () => {
    expect(formatRemaining(65_000)).toBe("1:05");
    expect(formatRemaining(3_725_000)).toBe("1:02:05");
    expect(formatRemaining(-5)).toBe("0:00");
  });
});

describe("creditedPartText", () => {
  it("says which part of a payment was credited at which rate", () => {
    expect(
      creditedPartText({ kind: "excess", amount: "0.00025000", rate_usd: "50000", usd: 12.5 }, "BTC"),
    ).toBe("0.00025000 BTC over the asked amount, at $50,000/BTC: $12.50");
    expect(creditedPartText({ kind: "quote", amount: "10.00", rate_usd: "1.0002", usd: 10 }, "USDT")).toBe(
      "10.00 USDT of the asked amount, at the locked $1.0002/USDT: $10.00",
    );
    expect(creditedPartText({ kind: "late", amount: "0.5", rate_usd: "158.2", usd: 79.1 }, "XMR")).toBe(
      "0.5 XMR after the quote ended, at $158.2/XMR: $79.10",
    );
  });
});
