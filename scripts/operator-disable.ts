/**
 * Deactivates an operator of the console at /operator, on the machine that runs the app, with the app's
 * environment (for when no other admin can do it from the console's Operators page):
 *
 *   npm run operator:disable NAME -- --reason "Left the company"
 *
 * Their every session ends and they can no longer sign in; the audit log records it as done on the machine
 * (by this user). On PostgreSQL (DATABASE_URL) it happens at once; with the embedded database, which belongs to
 * the running app's process, it waits in DATA_DIR/operators until the app's next operator request applies it.
 */
import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { ApiError } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { disableOperator, writeDisableRequest } from "@/lib/operator/operators";

function fail(message: string): never {
  console.error(`operator:disable: ${message}`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { reason: { type: "string" } },
  allowPositionals: true,
});
// `npm run operator:disable NAME --reason "..."` (without `--`) hands npm the flag, as operator:add explains.
const fromNpm = process.env.npm_config_reason;
let reason = values.reason ?? (fromNpm && fromNpm !== "true" ? fromNpm : undefined);
if (reason === undefined && fromNpm === "true" && positionals.length === 2) reason = positionals.pop();
const [name] = positionals;
if (!name || positionals.length > 1 || !reason) {
  fail('usage: npm run operator:disable NAME -- --reason "why (kept in the audit log)"');
}
if (reason.trim().length < 3 || reason.length > 500) fail("the reason must be 3 to 500 characters");

const by = `machine (${userInfo().username})`;
const settings = config();
if (settings.databaseUrl) {
  try {
    const { sessionsEnded } = await disableOperator(
      await db(),
      { operatorId: null, name: by, client: "machine" },
      name,
      reason.trim(),
    );
    console.log(`Operator ${name} deactivated; ${sessionsEnded} session(s) ended.`);
  } catch (error) {
    if (error instanceof ApiError) fail(error.message);
    throw error;
  }
} else {
  try {
    const file = writeDisableRequest(settings.dataDir, name, { reason: reason.trim(), by });
    console.log(
      `Waiting in ${file}: the app deactivates ${name} at its next operator request (their sessions end then).`,
    );
  } catch (error) {
    fail((error as Error).message);
  }
}
process.exit(0);
