/**
 * How `bench:reads` loads a route, shared with the benchmarks that set their figures beside it: autocannon at
 * a number of connections for a window, every answer's latency kept, and those on connections already open
 * kept apart (a window opens its connections at once, and their first answers wait for the server to take
 * them on at full load).
 */
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
