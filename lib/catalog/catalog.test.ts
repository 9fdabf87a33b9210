import { describe, expect, it } from "vitest";
import { COINS } from "@/lib/rails/registry";
import {
  annualSavingCents,
  findLocation,
  findPlan,
  LOCATIONS,
  monthlyPriceCents,
  OS_IMAGES,
  PLANS,
  priceFor,
} from "./catalog";
import { TOPUP_MAX_CENTS, TOPUP_MIN_CENTS, topupToCover } from "./topup-limits";

describe("catalog", () => {
  it("has 10 plan tiers from pup to fenrir with unique ids", () => {
    expect(PLANS).toHaveLength(10);
    expect(PLANS[0]?.id).toBe("pup");
    expect(PLANS.at(-1)?.id).toBe("fenrir");
    expect(new Set(PLANS.map((p) => p.id)).size).toBe(10);
  });

  it("has the 8 spec locations", () => {
    expect(LOCATIONS.map((l) => l.id)).toEqual(["nl", "fr", "ro", "bg", "se", "is", "ch", "my"]);
  });

  it("offers Debian 12 and 13, Ubuntu 24.04 and 22.04, AlmaLinux 9 and Rocky Linux 9", () => {
    const ids = OS_IMAGES.map((o) => o.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        "debian-12",
        "debian-13",
        "ubuntu-24.04",
        "ubuntu-22.04",
        "almalinux-9",
        "rockylinux-9",
      ]),
    );
  });

  it("accepts the seven spec coins", () => {
    expect(COINS.map((c) => c.code).sort()).toEqual([
      "BTC",
      "ETH",
      "LTC",
      "USDCBASE",
      "USDT",
      "USDTTRC",
      "XMR",
    ]);
  });
});

describe("pricing", () => {
  const plan = (id: string) => findPlan(id) ?? expect.unreachable(`plan ${id}`);
  const location = (id: string) => findLocation(id) ?? expect.unreachable(`location ${id}`);

  it("charges base x modifier per month", () => {
    expect(monthlyPriceCents(plan("pup"), location("nl"))).toBe(400);
    expect(monthlyPriceCents(plan("pup"), location("ro"))).toBe(360);
    expect(monthlyPriceCents(plan("fenrir"), location("ch"))).toBe(25515);
  });

  it("rounds half a cent up", () => {
    // 650 x 1.15 = 747.5 cents
    expect(monthlyPriceCents(plan("fox"), location("my"))).toBe(748);
  });

  it("charges 10 months for an annual cycle, so a year saves two months", () => {
    for (const p of PLANS) {
      for (const l of LOCATIONS) {
        const monthly = priceFor(p, l, "monthly");
        expect(priceFor(p, l, "annual")).toBe(monthly * 10);
        expect(annualSavingCents(p, l)).toBe(monthly * 2);
        expect(Number.isInteger(monthly)).toBe(true);
      }
    }
  });
});

describe("topupToCover", () => {
  it("asks for the deficit when it is at least the minimum top-up", () => {
    expect(topupToCover(4321)).toBe(4321);
    expect(topupToCover(TOPUP_MIN_CENTS)).toBe(TOPUP_MIN_CENTS);
  });

  it("asks for the minimum top-up when the deficit is smaller", () => {
    expect(topupToCover(1)).toBe(TOPUP_MIN_CENTS);
    expect(topupToCover(2499)).toBe(TOPUP_MIN_CENTS);
  });

  it("stops at the largest single top-up", () => {
    expect(topupToCover(TOPUP_MAX_CENTS + 1)).toBe(TOPUP_MAX_CENTS);
  });
});
