import { randomInt } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import { inject } from "vitest";
import { type RunningApp, startApp } from "../support/app-server";
import { until as untilNamed } from "../support/until";

let app: "baseUrl" | "tinyBaseUrl" = "baseUrl";
export const baseUrl = () => `${inject(app)}/api/v1`;
/** Points this test file's calls at another app its suite provides (the vm suite has two). */
export function targetApp(name: "baseUrl" | "tinyBaseUrl"): void {
  app = name;
}

/** A client address of its own for each caller, so per-address limits never leak between tests. */
export function randomIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

type CallOptions = {
  method?: string;
  key?: string;
  ip?: string;
  body?: unknown;
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Another app's origin than the suite's, for a test that starts its own. */
  base?: string;
};

export type ApiResult = {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { error?: string };
};

/** Calls the API over HTTP; `body` is sent as JSON, `rawBody` as given. */
export async function api(path: string, options: CallOptions = {}): Promise<ApiResult> {
  const headers: Record<string, string> = { "x-forwarded-for": options.ip ?? randomIp(), ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const root = options.base ? `${options.base}/api/v1` : baseUrl();
  const response = await fetch(`${root}${path}`, {
    method: options.method ?? "GET",
    headers,
    body: body as BodyInit | undefined,
  });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { unparsed: text };
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/**
 * Reads until `done` holds, every 150 ms, failing after `timeoutMs` (simulated host work takes a second or two;
 * a job finishing, a watcher catching up).
 */
export function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  return untilNamed(read, done, "stuck", timeoutMs, 150);
}

/** Reads a server until `done` holds for it (see until). */
export function waitForServer<Server = Record<string, unknown>>(
  key: string,
  id: number,
  done: (server: Server) => boolean,
  timeoutMs = 20_000,
): Promise<Server> {
  return until(async () => (await api(`/servers/${id}`, { key })).body as unknown as Server, done, timeoutMs);
}

export type TestAccount = { userId: number; apiKey: string; loginToken: string };

/** A new account on the suite's app, or on the app at `base`. */
export async function createAccount(ip = randomIp(), base?: string): Promise<TestAccount> {
  const result = await api("/account", { method: "POST", ip, base });
  if (result.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(result.body)}`);
  return {
    userId: result.body.user_id as number,
    apiKey: result.body.api_key as string,
    loginToken: result.body.login_token as string,
  };
}

/** Asserts the error shape every failure must have, and returns the code. */
export function errorCode(result: ApiResult): string {
  const { error, message } = result.body;
  if (typeof error !== "string" || typeof message !== "string" || message.length === 0) {
    throw new Error(`not an error body: ${JSON.stringify(result.body)}`);
  }
  return error;
}

/** A TOTP code of `secret` for the step `offset` steps from now, as an app with a drifting clock shows it. */
export const codeAt = (secret: string, offset: number) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offset * 30_000 });

/** Codes are judged on 30-second steps: start far enough from a step boundary that "now" cannot move. */
export async function awayFromStepBoundary() {
  const remaining = TOTP.remaining({ period: 30 });
  if (remaining < 12_000) await new Promise((resolve) => setTimeout(resolve, remaining + 500));
}

/**
 * A new account with TOTP on, confirmed with the previous step's code (so the current step's is unspent), and
 * the recovery codes the confirmation showed.
 */
export async function accountWithTotp(): Promise<TestAccount & { secret: string; recoveryCodes: string[] }> {
  await awayFromStepBoundary();
  const account = await createAccount();
  const secret = (await api("/account/totp", { method: "POST", key: account.apiKey })).body.secret as string;
  const confirmed = await api("/account/totp/confirm", {
    method: "POST",
    key: account.apiKey,
    body: { code: codeAt(secret, -1) },
  });
  if (confirmed.status !== 200)
    throw new Error(`TOTP confirmation failed: ${JSON.stringify(confirmed.body)}`);
  return { ...account, secret, recoveryCodes: confirmed.body.recovery_codes as string[] };
}

/**
 * Runs `use` with a second app process on the suite's database, and stops it after: what one instance writes,
 * the other must read. The same DATA_DIR: demo instances keep their generated secrets there, and both must
 * decrypt alike.
 */
export async function withSecondApp(use: (origin: string) => Promise<void>): Promise<void> {
  let second: RunningApp | undefined;
  try {
    second = await startApp({ ...inject("appEnv"), DATA_DIR: inject("appDataDir") });
    await use(second.url);
  } finally {
    await second?.stop();
  }
}
