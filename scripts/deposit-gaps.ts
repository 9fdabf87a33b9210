/**
 * The gap limit the operator's wallet needs to find every deposit, per chain: each top-up takes a fresh
 * derivation index whether or not it is paid, so a wallet restored from the deposit key must look past the
 * longest run of unpaid addresses. Run it with the app's environment (its DATABASE_URL, or its DATA_DIR
 * with the app stopped: the embedded database is one process's):
 *
 *   npm run deposits:gaps
 */
import { db } from "@/lib/db/client";
import { derivationGaps } from "@/lib/rails/deposits/gaps";

const gaps = await derivationGaps(await db());
const rows = gaps.map((gap) => [
  gap.chain,
  String(gap.handedOut),
  String(gap.paid),
  String(gap.longestUnpaidRun),
  String(gap.gapLimit),
  gap.firstHandedOut?.toISOString().slice(0, 10) ?? "-",
]);
const header = ["chain", "handed out", "paid", "longest unpaid run", "gap limit to set", "first handed out"];
const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)));
const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ");
console.log(line(header));
for (const row of rows) console.log(line(row));
if (rows.length === 0) console.log("(no deposit address handed out yet)");
process.exit(0);
