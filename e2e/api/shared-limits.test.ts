import { describe, expect, inject, it } from "vitest";
import { generateApiKey } from "@/lib/accounts/credentials";
import { type RunningApp, startApp } from "../support/app-server";
import { TEST_LIMITS } from "./global-setup";
import { randomIp } from "./helpers";

/** Sends one request to `origin` as if through a proxy that saw `ip`. */
async function call(origin: string, path: string, ip: string, init: RequestInit = {}) {
  const response = await fetch(`${origin}/api/v1${path}`, {
    ...init,
    headers: { "x-forwarded-for": ip, ...(init.headers as Record<string, string>) },
  });
  await response.arrayBuffer();
  return response.status;
}

/**
 * With PostgreSQL the rate-limit counters live in the database: two app processes on one database enforce
 * one limit between them, not one each.
 */
describe.runIf(inject("dbTarget") === "postgres")("rate limits shared by two app processes", () => {
  it("allows the sign-up limit once in total across both, in parallel, then 429 on either", async () => {
    let second: RunningApp | undefined;
    try {
      second = await startApp(inject("appEnv"));
      const origins = [inject("baseUrl"), second.url];
      const ip = randomIp();
      const attempts = TEST_LIMITS.accountCreate * 2 + 2;
      const statuses = await Promise.all(
        Array.from({ length: attempts }, (_, i) =>
          call(origins[i % 2] ?? "", "/account", ip, { method: "POST" }),
        ),
      );
      expect(statuses.filter((s) => s === 201)).toHaveLength(TEST_LIMITS.accountCreate);
      expect(statuses.filter((s) => s === 429)).toHaveLength(attempts - TEST_LIMITS.accountCreate);
      for (const origin of origins) expect(await call(origin, "/account", ip, { method: "POST" })).toBe(429);

      // Bad API keys: the limit counts failures from both processes together.
      const badIp = randomIp();
      const bad = { headers: { authorization: `Bearer ${generateApiKey().key}` } };
      const badStatuses: number[] = [];
      for (let i = 0; i < TEST_LIMITS.authFailures + 2; i++) {
        badStatuses.push(await call(origins[i % 2] ?? "", "/account", badIp, bad));
      }
      expect(badStatuses.filter((s) => s === 401)).toHaveLength(TEST_LIMITS.authFailures);
      expect(badStatuses.slice(TEST_LIMITS.authFailures)).toEqual([429, 429]);
    } finally {
      await second?.stop();
    }
  }, 120_000);
});
