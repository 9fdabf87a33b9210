import { PGlite } from "@electric-sql/pglite";
import { beforeAll, describe, expect, it } from "vitest";
import { currentWriteEpoch, tablesWriteEpoch, trackWrites, writtenTable } from "./write-epoch";

describe("write epoch", () => {
  let client: PGlite;
  // Starting an embedded database took 11 s on a loaded 2-core machine: give it the time it needs.
  beforeAll(async () => {
    client = await PGlite.create();
    await client.exec(
      "CREATE TABLE t (id int primary key, v int); CREATE TABLE u (id int primary key, t_id int REFERENCES t ON DELETE CASCADE)",
    );
    trackWrites(client);
  }, 60_000);

  it("stays put for plain reads, WITH queries that only select included", async () => {
    const before = currentWriteEpoch();
    await client.query("SELECT * FROM t WHERE id = $1", [1]);
    await client.query("  select 1");
    await client.query(
      "WITH RECURSIVE walk(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM walk WHERE n < 3) SELECT count(*) FROM walk",
    );
    expect(currentWriteEpoch()).toBe(before);
  });

  it("moves for a WITH query that writes or locks", async () => {
    const t = tablesWriteEpoch(["t"]);
    await client.query(
      "WITH changed AS (UPDATE t SET v = v WHERE id = -1 RETURNING id) SELECT * FROM changed",
    );
    expect(tablesWriteEpoch(["t"])).toBeGreaterThan(t);
    const before = currentWriteEpoch();
    await client.query("WITH one AS (SELECT id FROM t) SELECT * FROM t FOR UPDATE");
    expect(currentWriteEpoch()).toBeGreaterThan(before);
  });

  it("moves for every statement that may write, before and after it", async () => {
    let before = currentWriteEpoch();
    await client.query("INSERT INTO t VALUES ($1, $2)", [1, 1]);
    expect(currentWriteEpoch()).toBeGreaterThan(before);
    before = currentWriteEpoch();
    await client.query("SELECT * FROM t WHERE id = 1 FOR UPDATE");
    expect(currentWriteEpoch()).toBeGreaterThan(before);
    before = currentWriteEpoch();
    await client.exec("UPDATE t SET v = 2");
    expect(currentWriteEpoch()).toBeGreaterThan(before);
  });

  it("moves around transactions, and is already moved while one runs", async () => {
    const before = currentWriteEpoch();
    let during = before;
    await client.transaction(async (tx) => {
      during = currentWriteEpoch();
      await tx.query("UPDATE t SET v = v + 1");
    });
    expect(during).toBeGreaterThan(before);
    expect(currentWriteEpoch()).toBeGreaterThan(during);
  });

  it("moves even when the write fails", async () => {
    const before = currentWriteEpoch();
    await expect(client.query("INSERT INTO t VALUES (1, 1)")).rejects.toThrow();
    expect(currentWriteEpoch()).toBeGreaterThan(before);
  });

  it("moves a table's own counter for writes to it, and leaves other tables' alone", async () => {
    const t = tablesWriteEpoch(["t"]);
    const u = tablesWriteEpoch(["u"]);
    await client.query("UPDATE t SET v = v + 1 WHERE id = $1", [1]);
    await client.query("SELECT * FROM t WHERE id = 1 FOR UPDATE");
    expect(tablesWriteEpoch(["t"])).toBeGreaterThan(t);
    expect(tablesWriteEpoch(["u"])).toBe(u);
    await client.query('insert into "u" ("id", "t_id") values ($1, $2)', [1, 1]);
    expect(tablesWriteEpoch(["u"])).toBeGreaterThan(u);
  });

  it("moves every table's counter for a statement that may write anywhere (a cascading delete)", async () => {
    const u = tablesWriteEpoch(["u"]);
    await client.query("DELETE FROM t WHERE id = $1", [1]);
    expect(tablesWriteEpoch(["u"])).toBeGreaterThan(u);
    const again = tablesWriteEpoch(["u"]);
    await client.exec("INSERT INTO t VALUES (1, 1)");
    expect(tablesWriteEpoch(["u"])).toBeGreaterThan(again);
  });

  it("moves a table's counter for a write inside a transaction, and again when it ends", async () => {
    const before = tablesWriteEpoch(["t"]);
    const other = tablesWriteEpoch(["u"]);
    let during = before;
    await client.transaction(async (tx) => {
      await tx.query("SELECT * FROM u");
      await tx.query("UPDATE t SET v = v + 1");
      during = tablesWriteEpoch(["t"]);
    });
    expect(during).toBeGreaterThan(before);
    expect(tablesWriteEpoch(["t"])).toBeGreaterThan(during);
    expect(tablesWriteEpoch(["u"])).toBe(other);
  });

  it("names the table of an INSERT or UPDATE only", () => {
    expect(writtenTable('insert into "topups" ("id") values (default)')).toBe("topups");
    expect(writtenTable('update "servers" set "status" = $1')).toBe("servers");
    expect(writtenTable("INSERT INTO Deposit_Indexes (chain) VALUES ($1)")).toBe("deposit_indexes");
    expect(writtenTable('delete from "servers" where "id" = $1')).toBeUndefined();
    expect(writtenTable("WITH x AS (UPDATE t SET v = 1 RETURNING id) SELECT * FROM x")).toBeUndefined();
  });
});
