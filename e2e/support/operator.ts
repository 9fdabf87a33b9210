/**
 * The operator's side for tests, as an operator uses it: `npm run operator:add` on the machine (here its
 * script with the app's environment), then sign-in with the printed secret and a TOTP code computed from the
 * printed TOTP secret, and calls to the operator API with the session cookie and its CSRF token.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Secret, TOTP } from "otpauth";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");

export type NewOperator = { name: string; secret: string; totpSecret: string; output: string };

/** Runs one of the operator scripts as on the machine, with the app's environment (DATA_DIR, DATABASE_URL, secrets). */
async function runOperatorScript(
  env: Record<string, string>,
  script: string,
  args: string[],
): Promise<string> {
  const { stdout } = await run(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "--conditions=react-server", ...env },
    timeout: 120_000,
  });
  return stdout;
}

/** Runs `operator:add NAME --role ROLE` with the app's environment. */
export async function addOperator(
  env: Record<string, string>,
  name: string,
  role: string,
): Promise<NewOperator> {
  const stdout = await runOperatorScript(env, "scripts/operator-add.ts", [name, "--role", role, "--no-qr"]);
  const field = (label: string) => {
    const value = new RegExp(`^${label}:\\s+(\\S+)$`, "m").exec(stdout)?.[1];
    if (!value) throw new Error(`operator:add printed no ${label}:\n${stdout}`);
    return value;
  };
  return { name, secret: field("Sign-in secret"), totpSecret: field("TOTP secret"), output: stdout };
}

const STEP_MS = 30_000;
/** The last step each secret's code was handed out for, here. */
const handedOut = new Map<string, number>();

/**
 * A code of an operator's TOTP secret that the service takes now and has not taken before. It accepts one
 * step of clock drift either way and each code only from a later step than the last, so three codes are
 * ready at once (the previous step's, the current one's, the next one's, in that order); past them this
 * waits for the next step. The previous step is skipped when the current one ends within 3 s.
 */
export async function freshCode(totpSecret: string): Promise<string> {
  for (;;) {
    const now = Date.now();
    const current = Math.floor(now / STEP_MS);
    const left = (current + 1) * STEP_MS - now;
    const earliest = left > 3_000 ? current - 1 : current;
    const step = Math.max(earliest, (handedOut.get(totpSecret) ?? earliest - 1) + 1);
    if (step <= current + 1) {
      handedOut.set(totpSecret, step);
      return new TOTP({ secret: Secret.fromBase32(totpSecret) }).generate({ timestamp: step * STEP_MS });
    }
    await new Promise((resolve) => setTimeout(resolve, left + 200));
  }
}

export type OperatorSession = { cookie: string; csrf: string; baseUrl: string };

/** Signs in over HTTP; the session's cookie and CSRF token, or throws with the answer. */
export async function signInOperator(
  baseUrl: string,
  operator: NewOperator,
  headers: Record<string, string> = {},
): Promise<OperatorSession> {
  const response = await fetch(`${baseUrl}/api/operator/v1/session`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ secret: operator.secret, code: await freshCode(operator.totpSecret) }),
  });
  const body = (await response.json()) as { csrf_token?: string };
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status !== 200 || !cookie || !body.csrf_token) {
    throw new Error(`operator sign-in failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return { cookie, csrf: body.csrf_token, baseUrl };
}

export type OperatorCall = {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Leave the CSRF token out (writes must then be refused). */
  noCsrf?: boolean;
};

/** Calls the operator API with the session (or with nothing but `headers` when `session` is undefined). */
export async function operatorApi(
  baseUrl: string,
  session: OperatorSession | undefined,
  route: string,
  call: OperatorCall = {},
): Promise<{ status: number; body: Record<string, unknown> & { error?: string } }> {
  const headers: Record<string, string> = { ...call.headers };
  if (session) {
    headers.cookie = session.cookie;
    if (!call.noCsrf) headers["x-csrf-token"] = session.csrf;
  }
  if (call.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${baseUrl}/api/operator/v1${route}`, {
    method: call.method ?? "GET",
    headers,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** Runs `operator:disable NAME --reason REASON` with the app's environment, as on the machine. */
export async function disableOperatorOnMachine(
  env: Record<string, string>,
  name: string,
  reason: string,
): Promise<string> {
  return runOperatorScript(env, "scripts/operator-disable.ts", [name, "--reason", reason]);
}
