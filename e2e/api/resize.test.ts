import { describe, expect, it } from "vitest";
import { addMonths } from "@/lib/servers/cycle";
import { balanceOf, fund } from "./funding";
import { api, createAccount, errorCode, until, waitForServer } from "./helpers";

/**
 * Resizes on the simulated provisioner: the money to the cent, the quote, the refusals. The machine side (SSH
 * sees the new size, a forced failure undone) is in the VM suite.
 */

type Server = {
  id: number;
  plan: string;
  status: string;
  price_usd: number;
  expires_at: string;
  memory_mb: number;
  vcpus: number;
  disk_gb: number;
  status_reason: string | null;
};
type Terms = {
  from_plan: string;
  to_plan: string;
  direction: string;
  charge_usd: number;
  credit_usd: number;
  renewal_price_usd: number;
  expires_at: string;
  priced_at: string;
  seconds_left: number;
  period_seconds: number;
  disk_gb: number;
  memory_mb: number;
  downgrade_possible: boolean;
  smallest_plan_after: string;
  downtime_estimate_seconds: number;
};
type Quote = Terms & { dry_run: true; quote_id: string; quote_expires_at: string };
type Resize = Terms & {
  id: number;
  state: string;
  downtime_seconds: number | null;
  snapshot_id: number | null;
  failure_reason: string | null;
};

const cents = (usd: number) => Math.round(usd * 100);
const centsOf = async (key: string) => cents(await balanceOf(key));

/** A funded account with an active simulated server of `order`'s plan, location and cycle. */
async function serverFor(order: { plan: string; location: string; cycle?: string }, usd = 40) {
  const { apiKey } = await createAccount();
  await fund(apiKey, usd);
  const ordered = await api("/servers", { method: "POST", key: apiKey, body: { os: "debian-13", ...order } });
  expect(ordered.status).toBe(201);
  const server = await waitForServer<Server>(apiKey, ordered.body.id as number, (s) => s.status === "active");
  return { apiKey, server };
}

const resize = (key: string, id: number, body: unknown, headers: Record<string, string> = {}) =>
  api(`/servers/${id}/resize`, { method: "POST", key, body, headers });
const quote = async (key: string, id: number, body: Record<string, unknown>) => {
  const answer = await resize(key, id, { ...body, dry_run: true });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as unknown as Quote;
};
const resizesOf = async (key: string, id: number) =>
  (await api(`/servers/${id}/resizes`, { key })).body.resizes as Resize[];
const settled = (key: string, id: number) =>
  until(
    () => resizesOf(key, id),
    (list) => list[0]?.state === "done" || list[0]?.state === "failed",
  );

/**
 * The worked example every answer is held to: the difference of the two prices of one cycle, times the
 * seconds left, over the seconds of the period (the cycle before the expiry), an upgrade rounded up to the
 * cent and a downgrade's credit down. Exact integer arithmetic, as the service does it.
 */
function expected(terms: Terms, oldCents: number, newCents: number, months: 1 | 12) {
  const expiresAt = new Date(terms.expires_at);
  const secondsLeft = Math.floor((expiresAt.getTime() - Date.parse(terms.priced_at)) / 1000);
  const periodSeconds = (expiresAt.getTime() - addMonths(expiresAt, -months).getTime()) / 1000;
  const product = BigInt(Math.abs(newCents - oldCents)) * BigInt(secondsLeft);
  const period = BigInt(periodSeconds);
  const amount = newCents > oldCents ? (product + period - 1n) / period : product / period;
  return { secondsLeft, periodSeconds, amount: Number(amount) };
}

describe("resizing a server (simulated provisioner)", () => {
  it("a month: the quote, then an upgrade charged per second of the paid time left and a downgrade credited once done; the expiry stays, renewals cost the new price; one Idempotency-Key resizes once", async () => {
    const { apiKey, server } = await serverFor({ plan: "pup", location: "nl" });
    const balance = await centsOf(apiKey);

    // Pup ($4.00 a month) to Fox ($6.50): $2.50 a month more for what is left of the month. Ordered a moment
    // ago, almost the whole month is left: 250 x seconds_left / period_seconds, just under $2.50.
    const up = await quote(apiKey, server.id, { plan: "fox" });
    const upWant = expected(up, 400, 650, 1);
    expect(up).toMatchObject({
      dry_run: true,
      from_plan: "pup",
      to_plan: "fox",
      direction: "upgrade",
      charge_usd: upWant.amount / 100,
      credit_usd: 0,
      renewal_price_usd: 6.5,
      expires_at: server.expires_at,
      seconds_left: upWant.secondsLeft,
      period_seconds: upWant.periodSeconds,
      memory_mb: 2048,
      disk_gb: 20,
      grow_disk: false,
      downgrade_possible: true,
      smallest_plan_after: "pup",
    });
    expect([28, 29, 30, 31].map((days) => days * 86_400)).toContain(up.period_seconds);
    expect(up.charge_usd).toBeGreaterThan(2.4);
    expect(up.charge_usd).toBeLessThanOrEqual(2.5);
    expect(Date.parse(up.quote_expires_at) - Date.parse(up.priced_at)).toBe(600_000);
    expect(up.downtime_estimate_seconds).toBeGreaterThan(0);
    // A quote changes nothing.
    expect(await centsOf(apiKey)).toBe(balance);
    expect((await api(`/servers/${server.id}`, { key: apiKey })).body.plan).toBe("pup");

    // Taken up with its quote and an Idempotency-Key: charged exactly what was quoted, at once.
    const headers = { "idempotency-key": `resize-${server.id}` };
    const body = { plan: "fox", quote_id: up.quote_id };
    const accepted = await resize(apiKey, server.id, body, headers);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const first = accepted.body as unknown as Resize;
    expect(first).toMatchObject({ state: "pending", charge_usd: up.charge_usd, priced_at: up.priced_at });
    expect(await centsOf(apiKey)).toBe(balance - upWant.amount);
    const during = (await api(`/servers/${server.id}`, { key: apiKey })).body as unknown as Server;
    expect(during).toMatchObject({
      plan: "fox",
      price_usd: 6.5,
      memory_mb: 2048,
      expires_at: server.expires_at,
    });
    // The same key again: the same answer, one resize, one charge. Another body with it is refused.
    const replay = await resize(apiKey, server.id, body, headers);
    expect([replay.status, replay.body.id]).toEqual([202, first.id]);
    expect(errorCode(await resize(apiKey, server.id, { plan: "coyote" }, headers))).toBe(
      "idempotency_key_reused",
    );
    const [done] = await settled(apiKey, server.id);
    expect(done).toMatchObject({ id: first.id, state: "done", failure_reason: null });
    expect(done?.downtime_seconds).toEqual(expect.any(Number));
    expect(await resizesOf(apiKey, server.id)).toHaveLength(1);
    expect(await centsOf(apiKey)).toBe(balance - upWant.amount);
    const resized = (await api(`/servers/${server.id}`, { key: apiKey })).body as unknown as Server;
    expect(resized).toMatchObject({ status: "active", plan: "fox", status_reason: null });

    // Back to Pup, without a quote: priced now, credited (rounded down) only once the machine runs on it.
    const downAnswer = await resize(apiKey, server.id, { plan: "pup" });
    expect(downAnswer.status).toBe(202);
    const down = downAnswer.body as unknown as Resize;
    const downWant = expected(down, 650, 400, 1);
    expect(down).toMatchObject({ direction: "downgrade", charge_usd: 0, credit_usd: downWant.amount / 100 });
    expect(down.credit_usd).toBeGreaterThan(0);
    expect(down.credit_usd).toBeLessThanOrEqual(up.charge_usd);
    await settled(apiKey, server.id);
    expect(await centsOf(apiKey)).toBe(balance - upWant.amount + downWant.amount);

    // The expiry never moved; a renewal now costs Pup's $4.00.
    const before = await centsOf(apiKey);
    const renewed = await api(`/servers/${server.id}/renew`, { method: "POST", key: apiKey });
    expect(renewed.body).toMatchObject({ plan: "pup", price_usd: 4 });
    expect(Date.parse(renewed.body.expires_at as string)).toBe(
      addMonths(new Date(server.expires_at), 1).getTime(),
    );
    expect(await centsOf(apiKey)).toBe(before - 400);
  }, 120_000);

  it("a year: Pup ($40.00) to Fox ($65.00) and back, to the cent of the year's seconds", async () => {
    const { apiKey, server } = await serverFor({ plan: "pup", location: "nl", cycle: "annual" }, 80);
    const balance = await centsOf(apiKey);
    const up = await quote(apiKey, server.id, { plan: "fox" });
    const upWant = expected(up, 4000, 6500, 12);
    expect([365, 366].map((days) => days * 86_400)).toContain(up.period_seconds);
    expect([up.charge_usd, up.period_seconds, up.renewal_price_usd]).toEqual([
      upWant.amount / 100,
      upWant.periodSeconds,
      65,
    ]);
    expect((await resize(apiKey, server.id, { plan: "fox", quote_id: up.quote_id })).status).toBe(202);
    await settled(apiKey, server.id);
    const downAnswer = await resize(apiKey, server.id, { plan: "pup" });
    const downWant = expected(downAnswer.body as unknown as Terms, 6500, 4000, 12);
    expect(downAnswer.body.credit_usd).toBe(downWant.amount / 100);
    await settled(apiKey, server.id);
    expect(await centsOf(apiKey)).toBe(balance - upWant.amount + downWant.amount);
  }, 120_000);

  it("402 with the exact deficit when the balance does not cover an upgrade; nothing changes", async () => {
    const { apiKey, server } = await serverFor({ plan: "jackal", location: "nl" }, 25);
    const balance = await centsOf(apiKey);
    expect(balance).toBe(2500 - 900);
    const big = await quote(apiKey, server.id, { plan: "fenrir" });
    const refused = await resize(apiKey, server.id, { plan: "fenrir", quote_id: big.quote_id });
    expect([refused.status, errorCode(refused)]).toEqual([402, "insufficient_balance"]);
    expect(refused.body).toMatchObject({
      price: big.charge_usd,
      balance: balance / 100,
      deficit: (cents(big.charge_usd) - balance) / 100,
    });
    expect(refused.body.message).toMatch(/^Top up your balance before resizing: \$\d+\.\d\d more is needed/);
    expect(await centsOf(apiKey)).toBe(balance);
    expect((await api(`/servers/${server.id}`, { key: apiKey })).body.plan).toBe("jackal");
    expect(await resizesOf(apiKey, server.id)).toEqual([]);
  }, 120_000);

  it("409 out_of_capacity naming what does not fit on the host, before anything is charged", async () => {
    // The suite's one host is in Kuala Lumpur, with room for 3 GiB of memory (global-setup.ts).
    const { apiKey, server } = await serverFor({ plan: "pup", location: "my" });
    const balance = await centsOf(apiKey);
    for (const dryRun of [true, false]) {
      const refused = await resize(apiKey, server.id, { plan: "dingo", dry_run: dryRun });
      expect([refused.status, errorCode(refused)]).toEqual([409, "out_of_capacity"]);
      expect(refused.body.message).toMatch(/no room for Dingo now: 5120 MB more memory \(\d+ MB free\)/);
      expect(refused.body.message).toContain("Nothing was charged");
    }
    expect(await centsOf(apiKey)).toBe(balance);
    expect(await resizesOf(apiKey, server.id)).toEqual([]);
    // A size that fits goes through.
    expect((await resize(apiKey, server.id, { plan: "fox" })).status).toBe(202);
    await settled(apiKey, server.id);
  }, 120_000);

  it("a quote holds for 10 minutes, for its own server, plan and disk choice, while the server is unchanged", async () => {
    const { apiKey, server } = await serverFor({ plan: "pup", location: "nl" });
    const other = await serverFor({ plan: "pup", location: "nl" });
    const balance = await centsOf(apiKey);
    const held = await quote(apiKey, server.id, { plan: "fox" });
    const [, payload = "", signature = ""] = held.quote_id.split(".");
    const tampered = `rq1.${Buffer.from(
      Buffer.from(payload, "base64url")
        .toString()
        .replace(`${cents(held.charge_usd)}`, "1"),
    ).toString("base64url")}.${signature}`;
    for (const [quoteId, code] of [
      [tampered, "invalid_quote"],
      ["rq1.not-a-quote", "invalid_quote"],
    ] as const) {
      const refused = await resize(apiKey, server.id, { plan: "fox", quote_id: quoteId });
      expect([refused.status, errorCode(refused)]).toEqual([400, code]);
    }
    // Another account's server, even with a quote of its own, is 404; this quote on it is not valid either.
    expect((await resize(other.apiKey, server.id, { plan: "fox", quote_id: held.quote_id })).status).toBe(
      404,
    );
    expect(
      errorCode(await resize(other.apiKey, other.server.id, { plan: "fox", quote_id: held.quote_id })),
    ).toBe("invalid_quote");
    expect(errorCode(await resize(apiKey, server.id, { plan: "coyote", quote_id: held.quote_id }))).toBe(
      "quote_mismatch",
    );
    expect(
      errorCode(await resize(apiKey, server.id, { plan: "fox", grow_disk: true, quote_id: held.quote_id })),
    ).toBe("quote_mismatch");
    // Ten minutes and a second later it no longer holds, and nothing was charged.
    const moved = await api("/demo/clock", { method: "POST", body: { advance_seconds: 601 } });
    expect(moved.status).toBe(200);
    const late = await resize(apiKey, server.id, { plan: "fox", quote_id: held.quote_id });
    expect([late.status, errorCode(late)]).toEqual([409, "quote_expired"]);
    expect(late.body.message).toMatch(/held until .*; ask for a new one/);
    expect(await centsOf(apiKey)).toBe(balance);
    // A fresh quote, then a renewal (the expiry moves): that quote no longer holds either.
    const fresh = await quote(apiKey, server.id, { plan: "fox" });
    expect((await api(`/servers/${server.id}/renew`, { method: "POST", key: apiKey })).status).toBe(200);
    const stale = await resize(apiKey, server.id, { plan: "fox", quote_id: fresh.quote_id });
    expect([stale.status, errorCode(stale)]).toEqual([409, "quote_expired"]);
    expect(stale.body.message).toMatch(/changed since this quote/);
    expect(await resizesOf(apiKey, server.id)).toEqual([]);
  }, 120_000);

  it("the disk grows only when asked, after a snapshot, and never shrinks: every answer says what stays open", async () => {
    const { apiKey, server } = await serverFor({ plan: "pup", location: "nl" });
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ plan: "pup" }, 409, "already_on_plan"],
      [{ plan: "elephant" }, 400, "invalid_plan"],
      [{ plan: "fox", grow_disk: "yes" }, 400, "invalid_grow_disk"],
      [{ plan: "fox", dry_run: 1 }, 400, "invalid_dry_run"],
      [{ plan: "fox", extra: true }, 400, "unknown_field"],
    ];
    for (const [body, status, code] of refusals) {
      const refused = await resize(apiKey, server.id, body);
      expect([refused.status, errorCode(refused)], JSON.stringify(body)).toEqual([status, code]);
    }
    // Growing the disk closes the way back to plans with less disk, and the answer says so.
    const grow = await quote(apiKey, server.id, { plan: "fox", grow_disk: true });
    expect(grow).toMatchObject({ disk_gb: 40, downgrade_possible: false, smallest_plan_after: "fox" });
    const grown = await resize(apiKey, server.id, { plan: "fox", grow_disk: true });
    expect(grown.status).toBe(202);
    expect(grown.body.snapshot_id).toEqual(expect.any(Number));
    await settled(apiKey, server.id);
    const kept = (await api(`/servers/${server.id}/snapshots`, { key: apiKey })).body.snapshots as {
      id: number;
      kind: string;
      state: string;
      name: string;
    }[];
    expect(kept).toMatchObject([{ id: grown.body.snapshot_id, kind: "resize", state: "available" }]);
    expect(kept[0]?.name).toMatch(/^Before resize, /);
    expect((await api(`/servers/${server.id}`, { key: apiKey })).body.disk_gb).toBe(40);
    for (const [body, code] of [
      [{ plan: "pup" }, "disk_too_large"],
      [{ plan: "pup", grow_disk: true }, "disk_cannot_grow"],
    ] as const) {
      const refused = await resize(apiKey, server.id, body);
      expect([refused.status, errorCode(refused)], JSON.stringify(body)).toEqual([409, code]);
    }
    // CPU and memory still move up, the disk keeping its size.
    expect(await quote(apiKey, server.id, { plan: "coyote" })).toMatchObject({
      disk_gb: 40,
      memory_mb: 4096,
      downgrade_possible: true,
      smallest_plan_after: "fox",
    });
  }, 120_000);
});
