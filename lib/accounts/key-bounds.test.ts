import { describe, expect, it } from "vitest";
import { boundNewKey, type MakerRights } from "./key-bounds";

const maker: MakerRights = {
  scopes: ["servers:read", "servers:power", "billing:spend", "account:read", "keys:read", "keys:write"],
  expiresAt: new Date("2027-01-01T00:00:00Z"),
  networks: ["203.0.113.0/24", "2001:db8:5::/48"],
  serverIds: [4, 7],
  availableCents: 2500,
};

describe("what a key may give a key it makes", () => {
  it("passes on everything it has to a key that asks for nothing, its cap as what it has left, for good", () => {
    expect(boundNewKey(maker, {})).toEqual({
      scopes: maker.scopes,
      expiresAt: maker.expiresAt,
      networks: maker.networks,
      serverIds: maker.serverIds,
      spendCap: { cents: 2500, period: "total" },
    });
  });

  it("gives what is asked when it lies within its own", () => {
    expect(
      boundNewKey(maker, {
        scopes: ["servers:read"],
        expiresAt: new Date("2026-12-01T00:00:00Z"),
        networks: ["203.0.113.128/25", "2001:db8:5:1::/64"],
        serverIds: [7],
        spendCap: { cents: 2500, period: "day" },
      }),
    ).toEqual({
      scopes: ["servers:read"],
      expiresAt: new Date("2026-12-01T00:00:00Z"),
      networks: ["203.0.113.128/25", "2001:db8:5:1::/64"],
      serverIds: [7],
      spendCap: { cents: 2500, period: "day" },
    });
  });

  it.each([
    [{ scopes: ["servers:read", "servers:terminate"] }, "scopes", /servers:terminate/],
    [{ expiresAt: new Date("2027-01-01T00:00:01Z") }, "expires_at", /cannot outlive/],
    [{ networks: ["203.0.112.0/23"] }, "allowed_networks", /203\.0\.112\.0\/23 is outside/],
    [{ networks: ["0.0.0.0/0"] }, "allowed_networks", /outside/],
    [{ networks: ["2001:db8:6::/48"] }, "allowed_networks", /outside/],
    [{ serverIds: [4, 9] }, "server_ids", /server 9/],
    [{ spendCap: { cents: 2501, period: "month" } }, "spend_cap", /25\.00 USD more/],
  ] as const)("refuses more than it has: %j -> %s", (asked, field, message) => {
    const refusal = boundNewKey(maker, asked as never);
    expect(refusal).toMatchObject({ field });
    expect("message" in refusal && refusal.message).toMatch(message);
  });

  it("bounds nothing when the account makes the key (a dashboard session), and leaves unasked parts open", () => {
    expect(boundNewKey(null, { scopes: ["servers:read"] })).toEqual({
      scopes: ["servers:read"],
      expiresAt: null,
      networks: null,
      serverIds: null,
      spendCap: null,
    });
  });

  it("bounds only what the maker is limited in: a key with every scope and no conditions gives anything", () => {
    const open: MakerRights = {
      scopes: null,
      expiresAt: null,
      networks: null,
      serverIds: null,
      availableCents: null,
    };
    expect(boundNewKey(open, { networks: ["0.0.0.0/0"], spendCap: { cents: 1, period: "day" } })).toEqual({
      scopes: null,
      expiresAt: null,
      networks: ["0.0.0.0/0"],
      serverIds: null,
      spendCap: { cents: 1, period: "day" },
    });
  });

  it("gives a maker that cannot spend a key that cannot either: its cap is zero", () => {
    expect(boundNewKey({ ...maker, availableCents: 0 }, {}).valueOf()).toMatchObject({
      spendCap: { cents: 0, period: "total" },
    });
  });
});
