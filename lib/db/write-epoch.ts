/**
 * Counters that move on every write to the embedded database. PGlite lives inside this one process, so every
 * write passes through here: a value read while a counter stood at N is still exact while it stands at N.
 * This lets hot reads be cached without ever serving data older than the last write.
 *
 * Besides the one counter for any write, each table has its own: a read that names the tables it reads is
 * kept while none of them is written, so the background's steady writes elsewhere (jobs, metrics, watcher
 * cursors) leave it cached. A statement whose target is not known for sure moves every table's counter.
 */
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { processWide } from "@/lib/util/process-wide";

const counter = () => processWide("db.write-epoch", () => ({ value: 0 }));
const tableCounters = () =>
  processWide("db.table-write-epochs", () => ({ any: 0, byTable: new Map<string, number>() }));

export function currentWriteEpoch(): number {
  return counter().value;
}

/**
 * A number that changes whenever any of `tables` may have been written: the sum of their counters and the
 * counter of statements whose target is unknown (all only ever grow).
 */
export function tablesWriteEpoch(tables: readonly string[]): number {
  const counters = tableCounters();
  let sum = counters.any;
  for (const table of tables) sum += counters.byTable.get(table) ?? 0;
  return sum;
}

/**
 * A statement that only reads: a SELECT, or a WITH query (a recursive walk, say) none of whose parts inserts,
 * updates, deletes or merges; neither locking rows. A word that only looks like a write (in a string, say)
 * makes it count as one: harmless, it only costs the caches a reload.
 */
const isRead = (sql: string) =>
  (/^\s*select\b/i.test(sql) ||
    (/^\s*with\b/i.test(sql) && !/\b(insert|update|delete|merge)\b/i.test(sql))) &&
  !/\bfor\s+(update|share|no key update|key share)\b/i.test(sql);

/** Statements that change no row a read can see: locking reads, transaction control, upkeep. */
const changesNoRows = (sql: string) =>
  /^\s*(select|begin|commit|rollback|savepoint|release|vacuum|analyze|set|show)\b/i.test(sql);

/**
 * The one table an INSERT or UPDATE writes, or undefined when that is not certain. A DELETE can cascade
 * to other tables through foreign keys, and anything else (a CTE, several statements, DDL) may write
 * anywhere: those count as writing every table. The servers trigger writes only the updated row.
 */
export function writtenTable(sql: string): string | undefined {
  const match = /^\s*(?:insert\s+into|update)\s+"?([a-z_][a-z0-9_]*)"?[\s(]/i.exec(sql);
  return match?.[1]?.toLowerCase();
}

function noteTableWrite(sql: string): void {
  if (changesNoRows(sql)) return;
  const counters = tableCounters();
  const table = writtenTable(sql);
  if (table === undefined) counters.any += 1;
  else counters.byTable.set(table, (counters.byTable.get(table) ?? 0) + 1);
}

/**
 * Makes `client` move the counters before and after every statement that may write (and every transaction),
 * so a read that overlaps a write is never taken for current.
 */
export function trackWrites(client: PGlite): void {
  const epoch = counter();
  const around = async <T>(run: () => Promise<T>): Promise<T> => {
    epoch.value += 1;
    try {
      return await run();
    } finally {
      epoch.value += 1;
    }
  };
  /** Moves the statement's table counter (or all of them) before the statement and again after it. */
  const aroundStatement = async <T>(sql: string, run: () => Promise<T>): Promise<T> => {
    noteTableWrite(sql);
    try {
      return await run();
    } finally {
      noteTableWrite(sql);
    }
  };
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = ((sql: string, ...rest: unknown[]) =>
    isRead(sql)
      ? query(sql, ...(rest as []))
      : around(() => aroundStatement(sql, () => query(sql, ...(rest as []))))) as PGlite["query"];
  // exec may carry several statements: it counts as writing every table.
  client.exec = ((sql: string, ...rest: unknown[]) =>
    around(() => aroundStatement("-- several", () => exec(sql, ...(rest as []))))) as PGlite["exec"];
  client.transaction = ((callback: Parameters<PGlite["transaction"]>[0]) =>
    around(() => {
      const written = new Set<string>();
      return transaction((tx) => {
        const txQuery = tx.query.bind(tx);
        const txExec = tx.exec.bind(tx);
        tx.query = ((sql: string, ...rest: unknown[]) => {
          if (isRead(sql)) return txQuery(sql, ...(rest as []));
          written.add(sql);
          return aroundStatement(sql, () => txQuery(sql, ...(rest as [])));
        }) as Transaction["query"];
        tx.exec = ((sql: string, ...rest: unknown[]) => {
          written.add("-- several");
          return aroundStatement("-- several", () => txExec(sql, ...(rest as [])));
        }) as Transaction["exec"];
        return callback(tx);
      }).finally(() => {
        // Once more at the end: what the transaction wrote is visible from its commit on.
        for (const sql of written) noteTableWrite(sql);
      });
    })) as PGlite["transaction"];
}
