import pg from "pg";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { type RunningApp, startApp } from "../support/app-server";
import { balanceOf, fund } from "./funding";
import { api, createAccount, errorCode, randomIp, waitForServer } from "./helpers";

type Server = {
  id: number;
  plan: string;
  location: string;
  os: string;
  hostname: string;
  cycle: string;
  price_usd: number;
  status: string;
  ip: string | null;
  username: string;
  created_at: string;
  expires_at: string;
  auto_renew: boolean;
  power_state: string | null;
  terminates_at: string | null;
  root_password?: string;
};

type PriceRow = { plan: string; location: string; monthly_usd: number; annual_usd: number };
let prices: PriceRow[] = [];
const price = (plan: string, location: string) => {
  const row = prices.find((p) => p.plan === plan && p.location === location);
  if (!row) throw new Error(`no price for ${plan}/${location}`);
  return row;
};

beforeAll(async () => {
  prices = ((await api("/catalog")).body.pricing as { prices: PriceRow[] }).prices;
});

const order = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  api("/servers", { method: "POST", key, body, headers });

const advanceClock = async (seconds: number) => {
  const moved = await api("/demo/clock", { method: "POST", body: { advance_seconds: seconds } });
  expect(moved.status).toBe(200);
};

const waitFor = (key: string, id: number, done: (server: Server) => boolean) =>
  waitForServer<Server>(key, id, done, 15_000);

describe("POST /servers validation", () => {
  it.each([
    [{ location: "nl", os: "debian-13" }, "invalid_plan"],
    [{ plan: "elephant", location: "nl", os: "debian-13" }, "invalid_plan"],
    [{ plan: "pup", location: "us", os: "debian-13" }, "invalid_location"],
    [{ plan: "pup", location: "nl", os: "windows-95" }, "invalid_os"],
    [{ plan: "pup", location: "nl", os: "debian-13", cycle: "weekly" }, "invalid_cycle"],
    [{ plan: "pup", location: "nl", os: "debian-13", hostname: "-bad-" }, "invalid_hostname"],
    [{ plan: "pup", location: "nl", os: "debian-13", hostname: "a_b" }, "invalid_hostname"],
    [{ plan: "pup", location: "nl", os: "debian-13", root_password: "short" }, "invalid_root_password"],
    [
      { plan: "pup", location: "nl", os: "debian-13", root_password: "has spaces in it" },
      "invalid_root_password",
    ],
    [{ plan: "pup", location: "nl", os: "debian-13", extra: true }, "unknown_field"],
  ])("%j -> 400 %s, nothing charged", async (body, code) => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 25);
    const result = await order(apiKey, body);
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe(code);
    expect(await balanceOf(apiKey)).toBe(25);
    expect((await api("/servers", { key: apiKey })).body.servers).toEqual([]);
  });
});

describe("ordering from the balance", () => {
  it("402 insufficient_balance with price, balance and deficit, and nothing changes", async () => {
    const { apiKey } = await createAccount();
    const result = await order(apiKey, { plan: "fox", location: "nl", os: "debian-13" });
    expect(result.status).toBe(402);
    const { monthly_usd } = price("fox", "nl");
    // The spec's fields, and the x402 offer that pays the order instead (x402-orders.test.ts).
    expect(result.body).toEqual({
      error: "insufficient_balance",
      message: expect.stringMatching(/top up/i),
      price: monthly_usd,
      balance: 0,
      deficit: monthly_usd,
      x402Version: 1,
      accepts: [expect.objectContaining({ maxAmountRequired: String(Math.round(monthly_usd * 1_000_000)) })],
    });
    expect(result.body.message).toContain(monthly_usd.toFixed(2));
    await fund(apiKey, 25);
    const annual = await order(apiKey, { plan: "coyote", location: "ch", os: "debian-13", cycle: "annual" });
    expect(annual.status).toBe(402);
    const annualPrice = price("coyote", "ch").annual_usd;
    expect(annual.body).toMatchObject({ price: annualPrice, balance: 25 });
    expect(annual.body.deficit).toBeCloseTo(annualPrice - 25, 2);
    expect(await balanceOf(apiKey)).toBe(25);
  });

  it("201 with defaults: monthly, a generated hostname and password; the balance drops by exactly the price", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 50);
    const result = await order(apiKey, { plan: "fox", location: "ro", os: "ubuntu-24.04" });
    expect(result.status).toBe(201);
    const server = result.body as unknown as Server;
    expect(server).toMatchObject({
      plan: "fox",
      location: "ro",
      os: "ubuntu-24.04",
      cycle: "monthly",
      status: "provisioning",
      ip: null,
      username: "root",
      price_usd: price("fox", "ro").monthly_usd,
      auto_renew: false,
    });
    expect(server.hostname).toMatch(/^fox-ro-[a-z2-9]{6}$/);
    expect(server.root_password).toMatch(/^\S{24}$/);
    const created = new Date(server.created_at);
    const expires = new Date(server.expires_at);
    expect(expires.getUTCMonth()).toBe((created.getUTCMonth() + 1) % 12);
    expect(await balanceOf(apiKey)).toBeCloseTo(50 - server.price_usd, 2);
    expect((await api("/account", { key: apiKey })).body.servers).toBe(1);
  });

  it("annual costs 10 x monthly, and a given password is not echoed back", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 100);
    const result = await order(apiKey, {
      plan: "pup",
      location: "is",
      os: "debian-12",
      cycle: "annual",
      hostname: "Backup.Example.org",
      root_password: "my-own-Passw0rd!",
    });
    expect(result.status).toBe(201);
    const server = result.body as unknown as Server;
    expect(server.price_usd).toBe(price("pup", "is").annual_usd);
    expect(server.price_usd).toBeCloseTo(price("pup", "is").monthly_usd * 10, 2);
    expect(server.hostname).toBe("backup.example.org");
    expect(server.root_password).toBeUndefined();
    expect(new Date(server.expires_at).getUTCFullYear()).toBe(
      new Date(server.created_at).getUTCFullYear() + 1,
    );
    const credentials = await api(`/servers/${server.id}/credentials`, { key: apiKey });
    expect(credentials.status).toBe(200);
    expect(credentials.body).toEqual({
      username: "root",
      password: "my-own-Passw0rd!",
      // Only in rescue mode does the rescue system have a password of its own.
      rescue_password: null,
    });
    expect(credentials.headers.get("cache-control")).toBe("no-store");
  });

  it("Idempotency-Key: a retried order charges once; another body with the key is refused", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 50);
    const headers = { "idempotency-key": "order-once" };
    const body = { plan: "pup", location: "nl", os: "debian-13" };
    const results = await Promise.all(Array.from({ length: 5 }, () => order(apiKey, body, headers)));
    const ids = new Set(results.map((r) => r.body.id));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(4);
    // Only the first answer carries the generated password; replays point to /credentials.
    expect(results.filter((r) => typeof r.body.root_password === "string")).toHaveLength(1);
    expect(await balanceOf(apiKey)).toBeCloseTo(50 - price("pup", "nl").monthly_usd, 2);
    const other = await order(apiKey, { ...body, location: "fr" }, headers);
    expect(other.status).toBe(422);
    expect(errorCode(other)).toBe("idempotency_key_reused");
  });
});

describe("reading servers", () => {
  it("lists, shows and reveals only the owner's servers", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    await fund(owner.apiKey, 30);
    const created = (await order(owner.apiKey, { plan: "pup", location: "bg", os: "debian-13" }))
      .body as Server;
    const listed = (await api("/servers", { key: owner.apiKey })).body.servers as Server[];
    expect(listed.map((s) => s.id)).toEqual([created.id]);
    expect((await api(`/servers/${created.id}`, { key: owner.apiKey })).body.hostname).toBe(created.hostname);
    const credentials = await api(`/servers/${created.id}/credentials`, { key: owner.apiKey });
    expect(credentials.body.password).toBe(created.root_password);
    for (const path of [`/servers/${created.id}`, `/servers/${created.id}/credentials`]) {
      const foreign = await api(path, { key: other.apiKey });
      expect(foreign.status).toBe(404);
      expect(errorCode(foreign)).toBe("not_found");
    }
    expect((await api("/servers", { key: other.apiKey })).body.servers).toEqual([]);
    expect((await api("/servers/abc", { key: owner.apiKey })).status).toBe(404);
    expect((await api("/servers", {})).status).toBe(401);
  });
});

describe("lifecycle", () => {
  it("provisioning -> active with an IPv4 from the location's pool; power actions", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 30);
    const created = (await order(apiKey, { plan: "pup", location: "fr", os: "debian-13" })).body as Server;
    const active = await waitFor(apiKey, created.id, (s) => s.status === "active");
    expect(active.ip).toMatch(/^100\.64\.(1[6-9]|2\d|3[01])\.\d{1,3}$/); // fr's /20: 100.64.16.0-100.64.31.255
    expect(active.power_state).toBe("running");
    const stopped = await api(`/servers/${created.id}/actions`, {
      method: "POST",
      key: apiKey,
      body: { action: "stop" },
    });
    expect(stopped.body.power_state).toBe("stopped");
    const started = await api(`/servers/${created.id}/actions`, {
      method: "POST",
      key: apiKey,
      body: { action: "reboot" },
    });
    expect(started.body.power_state).toBe("running");
    const bad = await api(`/servers/${created.id}/actions`, {
      method: "POST",
      key: apiKey,
      body: { action: "explode" },
    });
    expect(errorCode(bad)).toBe("invalid_action");
  });

  it("manual renewal extends by one cycle and charges the price", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 30);
    const created = (await order(apiKey, { plan: "pup", location: "nl", os: "debian-13" })).body as Server;
    const before = await balanceOf(apiKey);
    const renewed = await api(`/servers/${created.id}/renew`, { method: "POST", key: apiKey });
    expect(renewed.status).toBe(200);
    const expires = new Date(renewed.body.expires_at as string);
    const original = new Date(created.expires_at);
    expect(expires.getUTCMonth()).toBe((original.getUTCMonth() + 1) % 12);
    expect(await balanceOf(apiKey)).toBeCloseTo(before - created.price_usd, 2);
  });

  it("expiry without renewal suspends; renewal brings it back; past the grace period it is terminated", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 25);
    // Coyote in nl costs 14 USD: after the order 11 USD remain, less than a renewal.
    const created = (await order(apiKey, { plan: "coyote", location: "nl", os: "debian-13" })).body as Server;
    await waitFor(apiKey, created.id, (s) => s.status === "active");
    await advanceClock(32 * 86_400);
    const suspended = await waitFor(apiKey, created.id, (s) => s.status === "suspended");
    expect(suspended.power_state).toBe("stopped");
    expect(suspended.terminates_at).not.toBeNull();
    const short = await api(`/servers/${created.id}/renew`, { method: "POST", key: apiKey });
    expect(short.status).toBe(402);
    expect(errorCode(short)).toBe("insufficient_balance");
    await fund(apiKey, 25);
    const renewed = await api(`/servers/${created.id}/renew`, { method: "POST", key: apiKey });
    expect(renewed.body).toMatchObject({ status: "active", power_state: "running", terminates_at: null });
    // Unpaid again: suspended at the next expiry, then terminated 7 days later.
    await advanceClock(32 * 86_400);
    await waitFor(apiKey, created.id, (s) => s.status === "suspended");
    await advanceClock(8 * 86_400);
    const terminated = await waitFor(apiKey, created.id, (s) => s.status === "terminated");
    expect(terminated).toMatchObject({ ip: null, power_state: null });
    expect((await api(`/servers/${created.id}/credentials`, { key: apiKey })).status).toBe(409);
    expect((await api("/account", { key: apiKey })).body.servers).toBe(0);
  });

  it("auto-renew renews at expiry from the balance", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 30);
    const created = (await order(apiKey, { plan: "pup", location: "nl", os: "debian-13" })).body as Server;
    const patched = await api(`/servers/${created.id}`, {
      method: "PATCH",
      key: apiKey,
      body: { auto_renew: true },
    });
    expect(patched.body.auto_renew).toBe(true);
    const balanceBefore = await balanceOf(apiKey);
    await advanceClock(32 * 86_400);
    const renewed = await waitFor(apiKey, created.id, (s) => s.expires_at !== created.expires_at);
    expect(renewed.status).not.toBe("suspended");
    expect(await balanceOf(apiKey)).toBeCloseTo(balanceBefore - created.price_usd, 2);
  });

  it("the owner terminates a server; it stays listed as terminated", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 30);
    const created = (await order(apiKey, { plan: "pup", location: "se", os: "debian-13" })).body as Server;
    const terminated = await api(`/servers/${created.id}`, { method: "DELETE", key: apiKey });
    expect(terminated.status).toBe(200);
    expect(terminated.body.status).toBe("terminated");
    const again = await api(`/servers/${created.id}`, { method: "DELETE", key: apiKey });
    expect(errorCode(again)).toBe("server_terminated");
    expect(
      (
        await api(`/servers/${created.id}/actions`, {
          method: "POST",
          key: apiKey,
          body: { action: "start" },
        })
      ).status,
    ).toBe(409);
  });
});

describe("concurrency", () => {
  const PLAN = { plan: "pup", location: "nl", os: "debian-13" };

  it("parallel power actions on one server: one runs, the others get 409 server_busy naming it and since when", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 30);
    const created = (await order(apiKey, PLAN)).body as Server;
    await waitFor(apiKey, created.id, (s) => s.status === "active");
    const actions = ["stop", "reboot", "stop", "reboot", "stop"];
    const results = await Promise.all(
      actions.map((action) =>
        api(`/servers/${created.id}/actions`, { method: "POST", key: apiKey, body: { action } }),
      ),
    );
    const ran = results.findIndex((r) => r.status === 200);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const action = actions[ran];
    expect(results[ran]?.body.power_state).toBe(action === "stop" ? "stopped" : "running");
    const busy = results.filter((r) => r.status === 409);
    expect(busy).toHaveLength(actions.length - 1);
    for (const refused of busy) {
      expect(errorCode(refused)).toBe("server_busy");
      expect(refused.body).toMatchObject({ operation: action, since: expect.any(String) });
      expect(refused.body.message).toContain(`a ${action} (since ${refused.body.since as string})`);
      expect(Date.parse(refused.body.since as string)).not.toBeNaN();
    }
    // Finished, it takes the next action; a refusal queued nothing (the server did exactly one action).
    const next = await api(`/servers/${created.id}/actions`, {
      method: "POST",
      key: apiKey,
      body: { action: action === "stop" ? "start" : "stop" },
    });
    expect(next.status).toBe(200);
    expect(next.body.power_state).toBe(action === "stop" ? "running" : "stopped");
  });

  it("the test clock answers this machine by its connection, whatever X-Forwarded-For says", async () => {
    // The suite reaches the app on loopback only; a remote peer is refused (lib/http/loopback.test.ts).
    for (const ip of ["203.0.113.5", "127.0.0.1"]) {
      const read = await api("/demo/clock", { ip });
      expect(read.status).toBe(200);
      expect(Date.parse(read.body.now as string)).not.toBeNaN();
    }
    const health = await api("/health");
    expect([health.body.provisioner, health.body.demo_libvirt]).toEqual(["simulated", false]);
  });

  async function hundredOrders(targets: string[]) {
    const { apiKey } = await createAccount();
    const unit = price("pup", "nl").monthly_usd;
    await fund(apiKey, Math.round(unit * 20 * 100) / 100);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${targets[i % targets.length]}/api/v1/servers`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${apiKey}`,
            "content-type": "application/json",
            "x-forwarded-for": randomIp(),
          },
          body: JSON.stringify(PLAN),
        }).then((r) => r.status),
      ),
    );
    expect(results.filter((s) => s === 201)).toHaveLength(20);
    expect(results.filter((s) => s === 402)).toHaveLength(80);
    expect(await balanceOf(apiKey)).toBe(0);
    expect((await api("/servers", { key: apiKey })).body.servers).toHaveLength(20);
  }

  it("100 parallel orders against a balance for exactly 20: 20 succeed, 80 get 402, nothing overdrawn", async () => {
    await hundredOrders([inject("baseUrl")]);
  });

  it("parallel orders and renewals, each with its own Idempotency-Key, neither deadlock nor overdraw", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 40);
    const first = (await order(apiKey, PLAN)).body as Server; // 4 USD; 36 USD left for 9 more cycles
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        i % 2 === 0
          ? order(apiKey, PLAN, { "idempotency-key": `order-${i}` })
          : api(`/servers/${first.id}/renew`, {
              method: "POST",
              key: apiKey,
              headers: { "idempotency-key": `renew-${i}` },
            }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 201 || s === 402)).toBe(true);
    expect(statuses.filter((s) => s !== 402)).toHaveLength(9);
    expect(await balanceOf(apiKey)).toBe(0);
  });

  it.runIf(inject("dbTarget") === "postgres")(
    "the same with two app processes on one PostgreSQL",
    async () => {
      let second: RunningApp | undefined;
      try {
        second = await startApp(inject("appEnv"));
        await hundredOrders([inject("baseUrl"), second.url]);
      } finally {
        await second?.stop();
      }
    },
    120_000,
  );

  it.runIf(inject("dbTarget") === "postgres")(
    "two app processes place 10 parallel orders on a host with room for 6: 6 built, 4 out_of_capacity, no money lost",
    async () => {
      // One host in Reykjavik sized for exactly six Pups (1 vCPU, 1 GiB, 20 GB each).
      const env = {
        ...inject("appEnv"),
        DATABASE_URL: inject("testDatabaseUrl"),
        // The same demo secrets as the suite's app, whose worker may build these servers too.
        DATA_DIR: inject("appDataDir"),
        HYPERVISORS: JSON.stringify([
          {
            name: "is-test-1",
            location: "is",
            uri: "qemu:///system",
            memory_mb: 6144,
            vcpus: 6,
            disk_gb: 120,
          },
        ]),
      };
      const apps: RunningApp[] = [];
      try {
        apps.push(await startApp(env), await startApp(env));
        // Business time as the suite's app has it (earlier tests moved its clock), so no process takes
        // another's running build for one whose lease ran out.
        const suiteNow = (await api("/demo/clock")).body.now as string;
        const ahead = Math.floor((Date.parse(suiteNow) - Date.now()) / 1000);
        if (ahead > 0) {
          for (const app of apps) {
            const moved = await fetch(`${app.url}/api/v1/demo/clock`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ advance_seconds: ahead }),
            });
            expect(moved.status).toBe(200);
          }
        }
        const { apiKey } = await createAccount();
        const unit = price("pup", "is").monthly_usd;
        await fund(apiKey, Math.round(unit * 10 * 100) / 100);
        const before = await balanceOf(apiKey);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            fetch(`${apps[i % 2]?.url}/api/v1/servers`, {
              method: "POST",
              headers: {
                authorization: `Bearer ${apiKey}`,
                "content-type": "application/json",
                "x-forwarded-for": randomIp(),
              },
              body: JSON.stringify({ plan: "pup", location: "is", os: "debian-12" }),
            }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string } })),
          ),
        );
        expect(results.filter((r) => r.status === 201)).toHaveLength(6);
        const refused = results.filter((r) => r.status === 409);
        expect(refused).toHaveLength(4);
        expect(refused.every((r) => r.body.error === "out_of_capacity")).toBe(true);
        expect(await balanceOf(apiKey)).toBeCloseTo(before - 6 * unit, 2);
        const servers = (await api("/servers", { key: apiKey })).body.servers as Server[];
        expect(servers).toHaveLength(6);
        // Each build ran once and succeeded (the suite's moved business clock may expire them right after).
        const ids = servers.map((server) => server.id);
        for (const id of ids) await waitFor(apiKey, id, (s) => s.status !== "provisioning");
        const client = new pg.Client({ connectionString: inject("testDatabaseUrl") });
        await client.connect();
        try {
          const jobs = await client.query(
            "SELECT state, attempts FROM server_jobs WHERE kind = 'provision' AND server_id = ANY($1::int[])",
            [ids],
          );
          expect(jobs.rows).toEqual(ids.map(() => ({ state: "done", attempts: 1 })));
        } finally {
          await client.end();
        }
      } finally {
        for (const app of apps) await app.stop();
      }
    },
    120_000,
  );
});
