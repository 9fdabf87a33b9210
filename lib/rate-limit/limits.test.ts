import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import { FixedWindowLimiter } from "./limiter";
import { limitKeyForAddress, type QuotaOutcome, withQuotas } from "./limits";

describe("limitKeyForAddress", () => {
  it("keeps IPv4 addresses, also when written IPv4-mapped", () => {
    expect(limitKeyForAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(limitKeyForAddress("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts an IPv6 client by its /64", () => {
    const a = limitKeyForAddress("2001:db8:1:2:aaaa::1");
    const b = limitKeyForAddress("2001:0db8:0001:0002:ffff:ffff:ffff:fffe");
    expect(a).toBe("2001:db8:1:2::/64");
    expect(b).toBe(a);
    expect(limitKeyForAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(limitKeyForAddress("2001:db8:1:3::1")).not.toBe(a);
  });

  it("passes other strings through, bounded in length", () => {
    expect(limitKeyForAddress("unknown")).toBe("unknown");
    expect(limitKeyForAddress("x".repeat(500))).toHaveLength(64);
  });
});

describe("withQuotas", () => {
  const limiter = () => new FixedWindowLimiter("test", { limit: 2, windowSeconds: 60 });
  const countsFailures = (outcome: QuotaOutcome<string>) => "error" in outcome;

  it("counts under every key, and refuses with 429 and Retry-After when any key is spent", async () => {
    const quota = limiter();
    const fail = () => Promise.reject(new Error("refused"));
    await expect(withQuotas(quota, ["account:1", "address:a"], fail, countsFailures)).rejects.toThrow(
      "refused",
    );
    await expect(withQuotas(quota, ["account:1", "address:b"], fail, countsFailures)).rejects.toThrow(
      "refused",
    );
    // account:1 is spent, whatever the address.
    const refused = await withQuotas(quota, ["account:1", "address:c"], fail, countsFailures).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["Retry-After"])).toBeGreaterThan(0);
    // The refused attempt counted nothing: address:c still has its whole quota.
    await expect(withQuotas(quota, ["account:2", "address:c"], fail, countsFailures)).rejects.toThrow(
      "refused",
    );
    await expect(withQuotas(quota, ["account:3", "address:c"], fail, countsFailures)).rejects.toThrow(
      "refused",
    );
    await expect(withQuotas(quota, ["account:4", "address:c"], fail, countsFailures)).rejects.toMatchObject({
      status: 429,
    });
  });

  it("gives the events back when the outcome does not count", async () => {
    const quota = limiter();
    for (let i = 0; i < 5; i++) {
      await expect(withQuotas(quota, ["account:1"], async () => "paid", countsFailures)).resolves.toBe(
        "paid",
      );
    }
    await expect(
      withQuotas(quota, ["account:1"], () => Promise.reject(new Error("x")), countsFailures),
    ).rejects.toThrow("x");
  });
});
