import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { api, createAccount } from "./helpers";

const onPostgres = inject("dbTarget") === "postgres";

/** Ends every connection the app holds to the test database, as a server restart or failover would. */
async function dropAppConnections(): Promise<number> {
  const client = new pg.Client({ connectionString: inject("testDatabaseUrl") });
  await client.connect();
  try {
    const result = await client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return result.rowCount ?? 0;
  } finally {
    await client.end();
  }
}

describe.skipIf(!onPostgres)("database connection loss (PostgreSQL)", () => {
  it("answers 200 or a retryable 503, never 500, and recovers by itself", async () => {
    const account = await createAccount();
    expect(await dropAppConnections()).toBeGreaterThan(0);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const result = await api("/account", { key: account.apiKey });
      statuses.push(result.status);
      if (result.status === 503) {
        expect(result.body.error).toBe("service_unavailable");
        expect(result.headers.get("retry-after")).toBe("1");
      }
      if (result.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    expect(statuses.at(-1)).toBe(200);
    // Writes work again too.
    expect((await api("/keys", { method: "POST", key: account.apiKey })).status).toBe(201);
  });

  it("reports 503 with error and message while the database refuses connections, then recovers", async () => {
    const account = await createAccount();
    const admin = new pg.Client({ connectionString: inject("testDatabaseUrl") });
    await admin.connect();
    const { rows } = await admin.query("SELECT quote_ident(current_database()) AS name");
    const database = rows[0].name as string;
    try {
      // New connections are refused from now on (SQLSTATE 53300); this one stays open to undo it.
      await admin.query(`ALTER DATABASE ${database} CONNECTION LIMIT 0`);
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      await new Promise((resolve) => setTimeout(resolve, 2_200)); // health probes at most every 2 s
      const health = await api("/health");
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({
        status: "unavailable",
        error: "service_unavailable",
        database: { status: "unreachable", kind: "postgres" },
      });
      expect(typeof health.body.message).toBe("string");
      const me = await api("/account", { key: account.apiKey });
      expect(me.status).toBe(503);
      expect(me.body.error).toBe("service_unavailable");
    } finally {
      await admin.query(`ALTER DATABASE ${database} CONNECTION LIMIT -1`);
      await admin.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect((await api("/health")).status).toBe(200);
    expect((await api("/account", { key: account.apiKey })).status).toBe(200);
  });
});
