import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type QuoteTerms, readQuote, signQuote } from "./quote";

const key = randomBytes(32);
const terms: QuoteTerms = {
  serverId: 7,
  accountId: 3,
  toPlan: "fox",
  growDisk: false,
  fromPlan: "pup",
  expiresAt: Date.parse("2027-02-01T00:00:00Z"),
  amountCents: 170,
  toPriceCents: 650,
  pricedAt: Date.parse("2027-01-11T00:00:00Z"),
  secondsLeft: 1_814_400,
  periodSeconds: 2_678_400,
  validUntil: Date.parse("2027-01-11T00:10:00Z"),
};

describe("resize quotes", () => {
  it("read back as signed", () => {
    const quote = signQuote(key, terms);
    expect(quote).toMatch(/^rq1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(readQuote(key, quote)).toEqual(terms);
  });

  it("an altered price, another key's signature or a malformed id is no quote", () => {
    const quote = signQuote(key, terms);
    const cheaper = signQuote(randomBytes(32), { ...terms, amountCents: 1 });
    const [, , signature] = quote.split(".");
    const forged = `${cheaper.split(".").slice(0, 2).join(".")}.${signature}`;
    for (const bad of [cheaper, forged, "rq1.abc", "rq1..", quote.slice(0, -2), `x${quote}`, `${quote}.x`]) {
      expect(readQuote(key, bad), bad).toBeUndefined();
    }
  });
});
