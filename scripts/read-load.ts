/**
 * How `bench:reads` loads a route, shared with the benchmarks that set their figures beside it: autocannon at
 * a number of connections for a window, every answer's latency kept, and those on connections already open
 * kept apart (a window opens its connections at once, and their first answers wait for the server to take
 * them on at full load).
 */
import http from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { percentile } from "./percentile";

export type Sample = {
  rps: number;
  p50: number;
  p99: number;
  p99Open: number;
  failures: number;
  /** Every answer's latency in ms, and those on connections already open. */
  all: number[];
  later: number[];
};

export async function load(
  url: string,
  key: string | undefined,
  duration: number,
  connections: number,
): Promise<Sample> {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const run = autocannon({ url, connections, duration, headers, pipelining: 1 });
  const opened = new Set<unknown>();
  const all: number[] = [];
  const later: number[] = [];
  (run as unknown as NodeJS.EventEmitter).on(
    "response",
    (client: unknown, _s: number, _b: number, ms: number) => {
      all.push(ms);
      if (opened.has(client)) later.push(ms);
      else opened.add(client);
    },
  );
  const result = await run;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p99Open: later.length ? Math.round(percentile(later, 99)) : 0,
    failures: result.errors + result.non2xx + result.timeouts,
    all,
    later,
  };
}

export type RouteSummary = {
  name: string;
  rps: number;
  p50: number;
  /** The worst window's p99, and the same on connections already open. */
  p99: number;
  p99Open: number;
  /** The p99 of every answer of the route across its windows, and the same on open connections. */
  p99Run: number;
  p99RunOpen: number;
  failures: number;
};

/** One route's windows summed up as bench:reads reports them. */
export function summarize(name: string, list: Sample[]): RouteSummary {
  return {
    name,
    rps: list.reduce((sum, s) => sum + s.rps, 0) / list.length,
    p50: Math.max(...list.map((s) => s.p50)),
    p99: Math.max(...list.map((s) => s.p99)),
    p99Open: Math.max(...list.map((s) => s.p99Open)),
    p99Run: Math.round(
      percentile(
        list.flatMap((s) => s.all),
        99,
      ),
    ),
    p99RunOpen: Math.round(
      percentile(
        list.flatMap((s) => s.later),
        99,
      ),
    ),
    failures: list.reduce((sum, s) => sum + s.failures, 0),
  };
}

export type OpenSample = {
  /** Requests scheduled in the window, and those that failed (an error, a non-2xx answer, no answer). */
  sent: number;
  errors: number;
  /** Each answered request's latency in ms, from the moment it was scheduled to go. */
  latencies: number[];
};

/**
 * An open loop: `rate` requests a second (with `extraHeaders`) on a fixed schedule for `duration` seconds, whatever the server's
 * pace. Each request's latency runs from the moment it was due to go, not from when it went, so time spent
 * waiting (for a connection, for this process's turn, for the server to take it) is counted as the
 * customer would feel it. Connections are opened as needed and kept; none is ever waited for.
 */
export async function openLoad(
  url: string,
  key: string | undefined,
  duration: number,
  rate: number,
  timeoutMs = 10_000,
  extraHeaders: Record<string, string> = {},
): Promise<OpenSample> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const headers: Record<string, string> = {
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...extraHeaders,
  };
  const total = Math.round(duration * rate);
  const interval = 1000 / rate;
  const latencies: number[] = [];
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const request = http.get(url, { agent, headers, timeout: timeoutMs }, (response) => {
        response.resume();
        response.on("end", () => {
          // A 304 answers a revalidation (If-None-Match) as it should.
          const ok =
            response.statusCode !== undefined && (response.statusCode < 300 || response.statusCode === 304);
          if (ok) latencies.push(performance.now() - due);
          else errors++;
          resolve();
        });
      });
      request.on("timeout", () => request.destroy(new Error("timed out")));
      request.on("error", () => {
        errors++;
        resolve();
      });
    });
  const start = performance.now();
  let next = 0;
  while (next < total) {
    const current = performance.now();
    // Everything already due goes now, each still timed from its own due moment.
    while (next < total && start + next * interval <= current) {
      inFlight.push(send(start + next * interval));
      next++;
    }
    await sleep(Math.max(0, start + next * interval - performance.now()));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { sent: total, errors, latencies };
}

export type OpenSummary = {
  name: string;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  errors: number;
};

/** One route's open-loop windows summed up: every answer of the route across its windows. */
export function summarizeOpen(name: string, list: OpenSample[]): OpenSummary {
  const all = list.flatMap((sample) => sample.latencies);
  // A route with no answer at all (every request failed or timed out) has no latency to show.
  const round = (value: number) => (all.length ? Math.round(value * 10) / 10 : Number.NaN);
  return {
    name,
    requests: list.reduce((sum, sample) => sum + sample.sent, 0),
    p50: round(percentile(all, 50)),
    p95: round(percentile(all, 95)),
    p99: round(percentile(all, 99)),
    max: round(all.reduce((longest, ms) => Math.max(longest, ms), 0)),
    errors: list.reduce((sum, sample) => sum + sample.errors, 0),
  };
}
