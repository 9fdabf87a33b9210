/**
 * Usage graphs and traffic over HTTP, on the simulated provisioner: its demo series go through the same
 * sampling, storage and accounting as real readings (the suite's app samples every 2 s).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { components } from "@/lib/dashboard/api-client/schema";
import { fund } from "./funding";
import { api, createAccount, errorCode } from "./helpers";

type Series = Record<string, (number | null)[]>;
type Metrics = {
  server_id: number;
  period: string;
  demo: boolean;
  resolution_seconds: number;
  from: string;
  to: string;
  timestamps: number[];
  series: Series;
  totals: Record<string, number>;
};
/** The server's `traffic`, as the OpenAPI document (and the typed client) describe it. */
type Traffic = components["schemas"]["ServerTraffic"];

const SERIES = [
  "cpu_percent",
  "memory_used_bytes",
  "network_in_bytes_per_second",
  "network_out_bytes_per_second",
  "disk_read_bytes_per_second",
  "disk_write_bytes_per_second",
];

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe("GET /servers/{id}/metrics and the server's traffic (demo series)", () => {
  let key: string;
  let id: number;
  const metrics = async (period?: string) =>
    api(`/servers/${id}/metrics${period ? `?period=${period}` : ""}`, { key });

  beforeAll(async () => {
    ({ apiKey: key } = await createAccount());
    await fund(key, 30);
    const ordered = await api("/servers", {
      method: "POST",
      key,
      body: { plan: "pup", location: "nl", os: "debian-13" },
    });
    expect(ordered.status).toBe(201);
    id = ordered.body.id as number;
    // A new server already shows its period, at zero.
    expect(ordered.body.traffic).toMatchObject({
      period_start: ordered.body.created_at,
      period_end: ordered.body.expires_at,
      allowance_bytes: 1_000_000_000_000,
      outbound_bytes: 0,
      inbound_bytes: 0,
      used_percent: 0,
      reached_80_percent_at: null,
      reached_100_percent_at: null,
      slowed_to_mbps: null,
    });
    await until(
      async () => (await api(`/servers/${id}`, { key })).body.status,
      (status) => status === "active",
    );
  }, 60_000);

  it("shows the last hour in 1-minute points with timestamps, units in the names, marked demo", async () => {
    const answer = await until(
      async () => (await metrics("1h")).body as unknown as Metrics,
      (body) => (body.series?.cpu_percent ?? []).some((value) => value !== null),
    );
    expect(answer).toMatchObject({ server_id: id, period: "1h", demo: true, resolution_seconds: 60 });
    expect(answer.timestamps).toHaveLength(60);
    expect(Date.parse(answer.to) - Date.parse(answer.from)).toBe(3_600_000);
    expect(answer.timestamps[0]).toBe(Date.parse(answer.from) / 1000);
    expect(answer.timestamps[59]).toBe(Date.parse(answer.to) / 1000 - 60);
    expect(Object.keys(answer.series).sort()).toEqual([...SERIES].sort());
    for (const name of SERIES) expect(answer.series[name]).toHaveLength(60);
    const measured = answer.series.cpu_percent?.findLastIndex((value) => value !== null) ?? -1;
    const at = (name: string) => answer.series[name]?.[measured] as number;
    expect(at("cpu_percent")).toBeGreaterThan(0);
    expect(at("cpu_percent")).toBeLessThanOrEqual(100);
    expect(at("memory_used_bytes")).toBeGreaterThan(0);
    expect(at("memory_used_bytes")).toBeLessThanOrEqual(1024 * 1024 * 1024);
    for (const name of SERIES.slice(2)) expect(at(name)).toBeGreaterThan(0);
    expect(answer.totals.network_out_bytes).toBeGreaterThan(0);
  });

  it("shows each new reading on the next read, though answers are reused between readings", async () => {
    const totalOut = async () => ((await metrics("1h")).body as unknown as Metrics).totals.network_out_bytes;
    const first = await totalOut();
    // The suite's app samples every 2 s: the next reading adds outbound bytes the next read must show.
    const grown = await until(totalOut, (total) => (total ?? 0) > (first ?? 0), 10_000);
    expect(grown).toBeGreaterThan(first ?? 0);
  });

  it("counts the month's outbound traffic on the server object and in the list", async () => {
    const server = await until(
      async () => (await api(`/servers/${id}`, { key })).body as { traffic: Traffic },
      (body) => body.traffic.outbound_bytes > 0,
    );
    expect(server.traffic.inbound_bytes).toBeGreaterThan(0);
    expect(server.traffic.used_percent).toBeLessThan(1);
    expect(server.traffic.reached_80_percent_at).toBeNull();
    const listed = (await api("/servers", { key })).body.servers as { id: number; traffic: Traffic }[];
    expect(listed.find((s) => s.id === id)?.traffic.outbound_bytes).toBeGreaterThan(0);
  });

  it("answers 24h in 5-minute points, 7d and 30d hourly; 24h when no period is named", async () => {
    for (const [period, points, step] of [
      ["24h", 288, 300],
      ["7d", 168, 3600],
      ["30d", 720, 3600],
    ] as const) {
      const answer = (await metrics(period)).body as unknown as Metrics;
      expect([answer.period, answer.resolution_seconds, answer.timestamps.length]).toEqual([
        period,
        step,
        points,
      ]);
      for (const name of SERIES) expect(answer.series[name]).toHaveLength(points);
    }
    expect(((await metrics()).body as unknown as Metrics).period).toBe("24h");
  });

  it("refuses a period it does not know, another account's server and no key", async () => {
    for (const period of ["2h", "", "30D", "1h&period=7d"]) {
      const refused = await api(`/servers/${id}/metrics?period=${encodeURIComponent(period)}`, { key });
      expect([refused.status, errorCode(refused)]).toEqual([400, "invalid_period"]);
    }
    const { apiKey: other } = await createAccount();
    const foreign = await api(`/servers/${id}/metrics`, { key: other });
    expect([foreign.status, errorCode(foreign)]).toEqual([404, "not_found"]);
    expect((await api(`/servers/${id}/metrics`)).status).toBe(401);
    expect((await api(`/servers/${id}/metrics`, { method: "POST", key })).status).toBe(405);
  });

  it("documents the traffic policy in the catalog", async () => {
    const catalog = (await api("/catalog")).body as { traffic: Record<string, unknown> };
    expect(catalog.traffic).toMatchObject({
      counted: "outbound",
      notices_percent: [80, 100],
      over_allowance_mbps: 10,
    });
  });
});
