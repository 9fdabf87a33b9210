/**
 * Load test of the production build on PGlite: GET /catalog and GET /account against GET /health (the cheapest
 * route) in the same run, many connections each. Prints requests/s and p99 latency, and each route's throughput
 * as a share of health's (target: at least 70%).
 *
 *   npm run bench                      # 10 s per route and round, 50 connections, 2 rounds
 *   BENCH_SECONDS=5 BENCH_CONNECTIONS=100 BENCH_ROUNDS=3 npm run bench
 */
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import autocannon from "autocannon";
import { startApp } from "../e2e/support/app-server";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const TARGET_SHARE = 0.7;

type Sample = { rps: number; p99: number; errors: number; non2xx: number };

async function load(url: string, headers: Record<string, string>, duration: number): Promise<Sample> {
  const result = await autocannon({ url, connections, duration, headers, pipelining: 1 });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

async function main() {
  if (!existsSync(".next/BUILD_ID")) execSync("npm run build", { stdio: "inherit" });
  const app = await startApp();
  try {
    const created = await fetch(`${app.url}/api/v1/account`, { method: "POST" });
    const { api_key: apiKey } = (await created.json()) as { api_key: string };
    const routes = {
      health: { path: "/api/v1/health", headers: {} },
      catalog: { path: "/api/v1/catalog", headers: {} },
      account: { path: "/api/v1/account", headers: { authorization: `Bearer ${apiKey}` } },
    };
    const samples: Record<string, Sample[]> = { health: [], catalog: [], account: [] };
    for (const route of Object.values(routes)) await load(`${app.url}${route.path}`, route.headers, 3); // warm-up
    // Routes alternate within each round, so drift in the machine's load touches all of them alike.
    for (let round = 0; round < rounds; round++) {
      for (const [name, route] of Object.entries(routes)) {
        samples[name]?.push(await load(`${app.url}${route.path}`, route.headers, seconds));
      }
    }
    const summary = Object.fromEntries(
      Object.entries(samples).map(([name, list]) => [
        name,
        {
          rps: list.reduce((sum, s) => sum + s.rps, 0) / list.length,
          p99: Math.max(...list.map((s) => s.p99)),
          failures: list.reduce((sum, s) => sum + s.errors + s.non2xx, 0),
        },
      ]),
    );
    const health = summary.health?.rps ?? 1;
    console.log(`\nPGlite, ${connections} connections, ${rounds} x ${seconds} s per route, production build`);
    console.log("route              req/s    p99 ms   share of health   failed");
    for (const [name, s] of Object.entries(summary)) {
      const share = `${((s.rps / health) * 100).toFixed(0)}%`;
      console.log(
        `GET /${name.padEnd(12)} ${s.rps.toFixed(0).padStart(7)} ${String(s.p99).padStart(9)}   ${share.padStart(15)}   ${s.failures}`,
      );
    }
    const misses = ["catalog", "account"].filter((name) => (summary[name]?.rps ?? 0) < TARGET_SHARE * health);
    console.log(
      misses.length === 0
        ? `target met: catalog and account at or above ${TARGET_SHARE * 100}% of health`
        : `target missed by: ${misses.join(", ")} (below ${TARGET_SHARE * 100}% of health)`,
    );
  } finally {
    await app.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
