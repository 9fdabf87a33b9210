/**
 * Adds an operator of the console at /operator, on the machine that runs the app, with the app's environment:
 *
 *   npm run operator:add NAME [-- --role read-only|support|admin]
 *
 * Prints, once, the sign-in secret and the TOTP secret (an otpauth:// URI, its QR code and the base32 text for
 * an authenticator app); only their hash and a sealed copy are kept. On PostgreSQL (DATABASE_URL) the operator
 * is written at once; with the embedded database, which belongs to the running app's process, it waits in
 * DATA_DIR/operators until the app's next operator sign-in (or start) takes it in.
 */
import { parseArgs } from "node:util";
import QRCode from "qrcode";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { OPERATOR_ROLES } from "@/lib/db/types";
import { insertOperator, newOperator, writeToInbox } from "@/lib/operator/operators";
import { isOperatorRole } from "@/lib/operator/roles";

function fail(message: string): never {
  console.error(`operator:add: ${message}`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { role: { type: "string" }, "no-qr": { type: "boolean", default: false } },
  allowPositionals: true,
});
// `npm run operator:add NAME --role admin` (without `--`) hands npm the flag: npm sets npm_config_role to "true"
// and passes the value on as a second word; `--role=admin` arrives as npm_config_role=admin.
const fromNpm = process.env.npm_config_role;
let role = values.role ?? (fromNpm && fromNpm !== "true" ? fromNpm : undefined);
if (role === undefined && fromNpm === "true" && positionals.length === 2) role = positionals.pop();
role ??= "read-only";
const [name] = positionals;
if (!name || positionals.length > 1)
  fail("usage: npm run operator:add NAME [--role read-only|support|admin]");
if (!isOperatorRole(role)) fail(`--role must be one of ${OPERATOR_ROLES.join(", ")}`);

const settings = config();
let created: ReturnType<typeof newOperator>;
try {
  created = newOperator(name, role, settings.encryptionKey);
} catch (error) {
  fail((error as Error).message);
}

let where: string;
if (settings.databaseUrl) {
  const outcome = await insertOperator(await db(), created.enrollment);
  if (outcome === "name_taken") fail(`an operator named ${name} exists already; choose another name`);
  where = "Added to the database.";
} else {
  try {
    const file = writeToInbox(settings.dataDir, created.enrollment);
    where = `Waiting in ${file}: the app takes it in at the next operator sign-in.`;
  } catch (error) {
    fail((error as Error).message);
  }
}

const origin = settings.publicBaseUrl ?? `http://127.0.0.1:${settings.port}`;
const lines = [
  `Operator ${name} (${role}). ${where}`,
  "",
  "Shown once, never again; keep them apart (a password manager for the secret, an authenticator app for TOTP):",
  "",
  `Sign-in secret: ${created.secret}`,
  `TOTP secret:    ${created.totpSecret}`,
  `TOTP URI:       ${created.otpauthUri}`,
];
if (!values["no-qr"]) {
  lines.push("", await QRCode.toString(created.otpauthUri, { type: "terminal", small: true }));
}
lines.push(`Sign in at ${new URL("/operator", origin).href} with the secret and a code from the app.`);
console.log(lines.join("\n"));
process.exit(0);
