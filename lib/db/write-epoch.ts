/**
 * A counter that moves on every write to the embedded database. PGlite lives inside this one process, so every
 * write passes through here: a value read while the counter stood at N is still exact while it stands at N.
 * This lets hot reads be cached without ever serving data older than the last write.
 */
import type { PGlite } from "@electric-sql/pglite";
import { processWide } from "@/lib/util/process-wide";

const counter = () => processWide("db.write-epoch", () => ({ value: 0 }));

export function currentWriteEpoch(): number {
  return counter().value;
}

const isRead = (sql: string) =>
  /^\s*select\b/i.test(sql) && !/\bfor\s+(update|share|no key update|key share)\b/i.test(sql);

/**
 * Makes `client` move the counter before and after every statement that may write (and every transaction),
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
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = ((sql: string, ...rest: unknown[]) =>
    isRead(sql) ? query(sql, ...(rest as [])) : around(() => query(sql, ...(rest as [])))) as PGlite["query"];
  client.exec = ((sql: string, ...rest: unknown[]) =>
    around(() => exec(sql, ...(rest as [])))) as PGlite["exec"];
  client.transaction = ((callback: Parameters<PGlite["transaction"]>[0]) =>
    around(() => transaction(callback))) as PGlite["transaction"];
}
