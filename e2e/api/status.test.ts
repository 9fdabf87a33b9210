import { describe, expect, inject, it } from "vitest";
import { type Status, StatusSchema } from "../../lib/api/schemas/status";
import { openConsole, requestTicket } from "../support/console-client";
import { startReceiver } from "../support/webhook-receiver";
import { fund } from "./funding";
import { api, createAccount, until, waitForServer } from "./helpers";

/** Keys that would name an account's things; none may appear anywhere in the document. */
const ACCOUNT_KEYS = new Set([
  "id",
  "account",
  "account_id",
  "user_id",
  "server_id",
  "session_id",
  "hostname",
  "ip",
  "ipv4",
  "ref",
  "address",
  "deposit_address",
  "amount",
  "amount_usd",
  "balance_usd",
  "url",
  "tx_hash",
]);

function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
  }
  return [];
}

/** GET /status as text and parsed, with its headers. */
async function status(headers: Record<string, string> = {}) {
  const response = await fetch(`${inject("baseUrl")}/api/v1/status`, { headers });
  const text = await response.text();
  return { response, text, body: (text ? JSON.parse(text) : null) as Status };
}

describe("GET /status, the public status page's figures", () => {
  it("counts a real order, credit, console session and webhook delivery, and names none of them", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 30);
    const receiver = await startReceiver();
    try {
      const hook = await api("/webhooks", {
        method: "POST",
        key: apiKey,
        body: { url: `${receiver.url}/status-hook` },
      });
      expect(hook.status).toBe(201);
      const ordered = await api("/servers", {
        method: "POST",
        key: apiKey,
        body: { plan: "pup", location: "is", os: "almalinux-9" },
      });
      expect(ordered.status).toBe(201);
      const id = ordered.body.id as number;
      const server = await waitForServer<{ status: string; hostname: string; ip: string }>(
        apiKey,
        id,
        (s) => s.status === "active",
      );
      // A console session as the dashboard opens one: the demo shell's first bytes are its first byte.
      const ticket = await requestTicket(inject("baseUrl"), apiKey, id);
      const terminal = await openConsole(ticket.body.websocket_url, ticket.body.ticket);
      await terminal.waitFor(`root@${server.hostname}:~# `);
      terminal.ws.close();
      expect((await api(`/webhooks/${hook.body.id}/test`, { method: "POST", key: apiKey })).status).toBe(202);
      await until(
        async () => receiver.received.length,
        (count) => count >= 1,
      );

      // The suite's app computes the figures every second (STATUS_REFRESH_SECONDS=1).
      const { body, text, response } = await until(
        () => status(),
        ({ body }) =>
          body.orders.some(
            (entry) =>
              entry.location === "is" &&
              entry.os === "almalinux-9" &&
              entry.windows.last_24h.orders.total > 0,
          ) &&
          body.credits.some((entry) => entry.coin === "USDTTRC") &&
          body.console.last_24h.to_first_byte.n > 0 &&
          body.webhooks.last_24h.to_delivery.n > 0,
        30_000,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("application/json");
      // Exactly the documented shape: parsing drops nothing.
      expect(StatusSchema.parse(body)).toEqual(body);
      const order = body.orders.find((entry) => entry.location === "is" && entry.os === "almalinux-9");
      expect(order).toMatchObject({ location_name: "Reykjavik, Iceland", os_name: "AlmaLinux 9" });
      const day = order?.windows.last_24h;
      expect(day?.orders.succeeded).toBeGreaterThan(0);
      expect(day?.to_active.p50_ms).toBeGreaterThan(0);
      // The simulated provisioner runs no machine: nothing answers SSH.
      expect(day?.to_ssh).toMatchObject({ n: 0, p50_ms: null });
      expect(body).toMatchObject({ mode: "demo", provisioner: "simulated", hosts: [] });
      // Each watcher by its coins (the suite's EVM one reads a real local chain), none by its name or node.
      expect(body.watchers).toContainEqual({
        coins: ["BTC", "XMR", "LTC", "USDTTRC"],
        simulated: true,
        state: "up",
      });
      expect(body.watchers).toContainEqual({ coins: ["ETH", "USDT"], simulated: false, state: "up" });
      expect(body.series.hour_starts).toHaveLength(168);
      expect(body.methods.orders).toMatch(/accepted/);

      // No account data: no key that names one, and none of this account's values.
      expect(keysOf(body).filter((key) => ACCOUNT_KEYS.has(key))).toEqual([]);
      const topups = (await api("/topups", { key: apiKey })).body.topups as {
        ref: string;
        deposit_address: string;
      }[];
      for (const secretive of [
        apiKey,
        server.hostname,
        server.ip,
        receiver.url,
        ticket.body.ticket,
        ...topups.flatMap((topup) => [topup.ref, topup.deposit_address]),
      ]) {
        expect(text).not.toContain(secretive);
      }
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it("is public, revalidates with its ETag, and takes GET only", async () => {
    const first = await status();
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get("etag")).toMatch(/^"[\w-]+"$/);
    expect(first.response.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
    // The suite's app computes a new document every second: ask again at once, until one is still current.
    const notModified = await until(
      async () => {
        const etag = (await status()).response.headers.get("etag") ?? "";
        const again = await fetch(`${inject("baseUrl")}/api/v1/status`, {
          headers: { "if-none-match": etag },
        });
        return {
          etag,
          status: again.status,
          sameEtag: again.headers.get("etag") === etag,
          body: await again.text(),
        };
      },
      (answer) => answer.sameEtag,
    );
    expect(notModified).toMatchObject({ status: 304, body: "" });
    const stale = await status({ "if-none-match": '"not-this-one"' });
    expect(stale.response.status).toBe(200);
    const post = await api("/status", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });

  it("is drawn at /status for anyone signed out, linked from every page's footer", async () => {
    const page = await fetch(`${inject("baseUrl")}/status`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("From order to a running server");
    const landing = await (await fetch(`${inject("baseUrl")}/`)).text();
    expect(landing).toMatch(/<a [^>]*href="\/status"/);
  });
});
