/**
 * Starts one app for the API suite, on the database named by API_TEST_DB:
 * `pglite` (default, a fresh embedded database) or `postgres` (TEST_DATABASE_URL, wiped first).
 */
import pg from "pg";
import type { TestProject } from "vitest/node";
import { type RunningApp, startApp } from "../support/app-server";

/** Limits low enough for the suite to reach them, per test-chosen client address. */
export const TEST_LIMITS = { accountCreate: 5, authFailures: 8 };

async function resetPostgres(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      "DROP SCHEMA IF EXISTS public CASCADE; DROP SCHEMA IF EXISTS drizzle CASCADE; CREATE SCHEMA public;",
    );
  } finally {
    await client.end();
  }
}

let app: RunningApp | undefined;

export async function setup(project: TestProject) {
  const target = process.env.API_TEST_DB ?? "pglite";
  const env: Record<string, string> = {
    RATE_LIMIT_ACCOUNT_CREATE: `${TEST_LIMITS.accountCreate}/1h`,
    RATE_LIMIT_AUTH_FAILURES: `${TEST_LIMITS.authFailures}/10m`,
  };
  if (target === "postgres") {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error("API_TEST_DB=postgres needs TEST_DATABASE_URL");
    await resetPostgres(url);
    env.DATABASE_URL = url;
  }
  app = await startApp(env);
  project.provide("baseUrl", app.url);
  project.provide("dbTarget", target);
  project.provide("testDatabaseUrl", env.DATABASE_URL ?? "");
}

export async function teardown() {
  await app?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    dbTarget: string;
    testDatabaseUrl: string;
  }
}
