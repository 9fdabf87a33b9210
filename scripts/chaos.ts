/**
 * The chaos run: nginx with deploy/nginx/vps.conf (ports and certificate templated) in front of three
 * app instances (scripts/server.mjs) on a throwaway PostgreSQL cluster, all on loopback, with mixed clients for
 * CHAOS_SECONDS while PostgreSQL is restarted twice and one instance is killed with SIGKILL and started again.
 * Afterwards it checks the money and the limits on the database and exits non-zero on any violation.
 *
 *   npm run build && CHAOS_SECONDS=60 npm run chaos
 *
 * Ports: CHAOS_PORT_BASE (default 3641): instances at +0..+2, nginx HTTPS at +3, HTTP at +4, PostgreSQL at +7.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { authorizationTypes } from "@x402/evm";
import pg from "pg";
import { toHex } from "viem";
import {
  generatePrivateKey,
  type PrivateKeyAccount,
  privateKeyToAccount,
  privateKeyToAddress,
} from "viem/accounts";
import WebSocket from "ws";
import { checkLedger } from "../e2e/support/ledger-check";
import { startNginx } from "../e2e/support/nginx";
import { type LocalChain, startAnvil } from "../lib/demo-chain/anvil";
import { fundNativeBalance, installTestToken, mintTestToken } from "../lib/demo-chain/test-token";
import { RECONNECT_CODES, TICKET_PROTOCOL_PREFIX } from "../lib/servers/console/protocol";

const ROOT = path.resolve(import.meta.dirname, "..");
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 60);
const PORT_BASE = Number(process.env.CHAOS_PORT_BASE ?? 3641);
const APP_PORTS = [PORT_BASE, PORT_BASE + 1, PORT_BASE + 2];
const HTTPS_PORT = PORT_BASE + 3;
const HTTP_PORT = PORT_BASE + 4;
const PG_PORT = PORT_BASE + 7;
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
/** Limits low enough for the probes to reach within the run; ordinary clients each use a fresh address. */
const SIGNUP_LIMIT = 5;
const BAD_KEY_LIMIT = 8;
/** How long a client keeps retrying one request after the run's end before it gives up. */
const GIVE_UP_MS = 150_000;

const log = (message: string) => console.log(`[chaos ${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
let t0 = Date.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<void> | void)[] = [];

// ---------------------------------------------------------------- PostgreSQL, throwaway

function pgBin(name: string): string {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const candidate = `/usr/lib/postgresql/${version}/bin/${name}`;
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} not found under /usr/lib/postgresql: install the postgresql package`);
}

/** Runs a PostgreSQL tool as the postgres user when we are root (the server refuses to run as root). */
function asPostgres(command: string, args: string[]) {
  const root = process.getuid?.() === 0;
  const [file, argv] = root ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  return execFileSync(file, argv, { stdio: ["ignore", "pipe", "pipe"] }).toString();
}

function startPostgres() {
  const dir = mkdtempSync(path.join(tmpdir(), "vps-chaos-pg-"));
  const data = path.join(dir, "data");
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  asPostgres(pgBin("initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-p ${PG_PORT} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const ctl = (...args: string[]) => asPostgres(pgBin("pg_ctl"), ["-D", data, ...args]);
  const start = () => ctl("-o", options, "-l", path.join(dir, "server.log"), "-w", "start");
  const stop = () => ctl("-m", "fast", "-w", "stop");
  start();
  asPostgres(pgBin("createdb"), ["-h", "127.0.0.1", "-p", String(PG_PORT), "-U", "postgres", "vps_chaos"]);
  cleanups.push(() => {
    try {
      stop();
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });
  return { url: `postgres://postgres@127.0.0.1:${PG_PORT}/vps_chaos`, start, stop };
}

// ---------------------------------------------------------------- the chain

async function startChain() {
  const base = await startAnvil({ chainId: 8453, blockTime: 1 });
  cleanups.push(() => base.stop());
  await installTestToken(
    base.rpcUrl,
    { name: "USD Coin", version: "2", symbol: "USDC", decimals: 6 },
    { at: BASE_USDC },
  );
  const relayerKey = generatePrivateKey();
  await fundNativeBalance(base.rpcUrl, privateKeyToAddress(relayerKey), 10n ** 20n);
  return { base, relayerKey, payTo: privateKeyToAddress(generatePrivateKey()) };
}

// ---------------------------------------------------------------- app instances

type Instance = { port: number; child?: ChildProcess; output: string };

async function waitHealthy(port: number, child: ChildProcess, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`instance ${port} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status < 500) return;
    } catch {}
    await sleep(250);
  }
  throw new Error(`instance ${port} did not become healthy`);
}

function spawnInstance(instance: Instance, env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "scripts/server.mjs"), "-H", "127.0.0.1", "-p", String(instance.port)],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, PORT: String(instance.port) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const keep = (chunk: Buffer) => {
    instance.output = (instance.output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  instance.child = child;
  return child;
}

function killInstance(instance: Instance, signal: NodeJS.Signals) {
  const pid = instance.child?.pid;
  if (pid && instance.child?.exitCode === null) {
    try {
      process.kill(-pid, signal);
    } catch {}
  }
}

// ---------------------------------------------------------------- the HTTP client and its records

type Sample = { route: string; status: number | "conn"; ms: number; at: number };
const samples: Sample[] = [];
let retries = 0;
let gaveUp = 0;
const faultWindows: [number, number][] = [];
const faults: string[] = [];
let ca: Buffer;
const agents = new Map<string, https.Agent>();

function agentFor(ip: string) {
  let agent = agents.get(ip);
  if (!agent) {
    agent = new https.Agent({
      keepAlive: true,
      ca,
      localAddress: ip,
      servername: "localhost",
      maxSockets: 8,
    });
    agents.set(ip, agent);
  }
  return agent;
}

type Response = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  text: string;
};
type CallOptions = {
  ip: string;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  cookie?: string;
};

function once(method: string, url: string, options: CallOptions): Promise<Response> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (payload !== undefined) headers["content-type"] = "application/json";
    if (options.cookie) headers.cookie = options.cookie;
    const request = https.request(
      {
        host: "127.0.0.1",
        port: HTTPS_PORT,
        path: url,
        method,
        headers,
        agent: agentFor(options.ip),
        timeout: 30_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let body: Record<string, unknown> = {};
          try {
            body = text ? JSON.parse(text) : {};
          } catch {}
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text });
        });
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", reject);
    request.end(payload);
  });
}

/** The route a path belongs to, for the figures: ids and refs folded. */
const routeOf = (method: string, url: string) =>
  `${method} ${url
    .replace(/\?.*$/, "")
    .replace(/\/\d+(?=\/|$)/g, "/{id}")
    .replace(/\/topups\/[A-Za-z0-9_-]{6,}/, "/topups/{ref}")}`;

const RETRY_409 = new Set(["idempotency_key_in_use", "payment_in_progress"]);
let running = true;
let hardStop = Number.POSITIVE_INFINITY;

/**
 * One request as a careful client makes it: 5xx and connection errors are retried with the same body and
 * headers (so the same Idempotency-Key) until an answer comes or the run's grace period ends.
 */
async function call(method: string, url: string, options: CallOptions): Promise<Response | undefined> {
  const route = routeOf(method, url);
  let wait = 0;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) {
      retries++;
      await sleep(wait);
    }
    if (Date.now() > hardStop) {
      gaveUp++;
      return undefined;
    }
    const started = Date.now();
    try {
      const response = await once(method, url, options);
      samples.push({ route, status: response.status, ms: Date.now() - started, at: started });
      // 5xx, and the 409s that say the same request is still being processed, are retried after Retry-After.
      const busy = response.status === 409 && RETRY_409.has(String(response.body.error));
      if (response.status < 500 && !busy) return response;
      const after = Number(response.headers["retry-after"]);
      wait = after > 0 ? Math.min(10_000, after * 1000) : Math.min(2000, 200 * (attempt + 1));
    } catch {
      samples.push({ route, status: "conn", ms: Date.now() - started, at: started });
      wait = Math.min(2000, 200 * (attempt + 1));
    }
  }
}

const api = (method: string, url: string, options: CallOptions) => call(method, `/api/v1${url}`, options);
const freshIp = () => `127.${randomInt(1, 200)}.${randomInt(256)}.${randomInt(1, 255)}`;

// ---------------------------------------------------------------- clients

type Account = { key: string; loginToken: string; ip: string };
const accounts: Account[] = [];
type OrderIntent = { key: string; idem: string; status?: number; serverId?: number };
const orders: OrderIntent[] = [];
type RenewIntent = { serverId: number; idem: string; status?: number };
const renewals: RenewIntent[] = [];
type X402Intent = { nonce: string; status?: number; ref?: string };
const x402Payments: X402Intent[] = [];
const violations: string[] = [];
const probe = { signup: [] as number[], badKey: [] as number[] };

async function signUp(ip = freshIp()): Promise<Account | undefined> {
  const created = await api("POST", "/account", { ip });
  if (created?.status !== 201) return undefined;
  const account = { key: created.body.api_key as string, loginToken: created.body.login_token as string, ip };
  accounts.push(account);
  return account;
}

async function classicTopUp(account: Account, usd: number) {
  const created = await api("POST", "/topups", {
    ip: account.ip,
    key: account.key,
    body: { amount: usd, coin: "USDTTRC" },
    headers: { "idempotency-key": randomUUID() },
  });
  if (created?.status !== 201) return false;
  const ref = created.body.ref as string;
  await api("POST", `/demo/topups/${ref}/pay`, { ip: account.ip, key: account.key, body: {} });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const topup = await api("GET", `/topups/${ref}`, { ip: account.ip, key: account.key });
    if (topup?.body.status === "completed") return true;
    if (!topup) return false;
    await sleep(300);
  }
  return false;
}

async function order(account: Account): Promise<number | undefined> {
  const intent: OrderIntent = { key: account.key, idem: randomUUID() };
  orders.push(intent);
  const response = await api("POST", "/servers", {
    ip: account.ip,
    key: account.key,
    body: { plan: "pup", location: "nl", os: "debian-12" },
    headers: { "idempotency-key": intent.idem },
  });
  intent.status = response?.status;
  if (response && (response.status === 201 || response.status === 200))
    intent.serverId = response.body.id as number;
  return intent.serverId;
}

async function customer() {
  while (running) {
    const account = await signUp();
    if (!account) {
      await sleep(200);
      continue;
    }
    await api("POST", "/keys", { ip: account.ip, key: account.key, body: { name: "chaos" } });
    if (!(await classicTopUp(account, 50))) continue;
    const first = await order(account);
    await order(account);
    if (first !== undefined) {
      const renewal: RenewIntent = { serverId: first, idem: randomUUID() };
      renewals.push(renewal);
      const renewed = await api("POST", `/servers/${first}/renew`, {
        ip: account.ip,
        key: account.key,
        headers: { "idempotency-key": renewal.idem },
      });
      renewal.status = renewed?.status;
      await api("GET", `/servers/${first}/credentials`, { ip: account.ip, key: account.key });
    }
    await api("GET", "/servers", { ip: account.ip, key: account.key });
    await api("GET", "/account", { ip: account.ip, key: account.key });
  }
}

async function signPayment(chain: { payTo: `0x${string}` }, payer: PrivateKeyAccount, units: bigint) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const message = {
    from: payer.address,
    to: chain.payTo,
    value: units,
    validAfter: now - 600n,
    validBefore: now + 280n,
    nonce: toHex(randomBytes(32)),
  };
  const signature = await payer.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: BASE_USDC },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  const payload = {
    x402Version: 1,
    scheme: "exact",
    network: "base",
    payload: {
      signature,
      authorization: {
        ...message,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
      },
    },
  };
  return { header: Buffer.from(JSON.stringify(payload)).toString("base64"), nonce: message.nonce };
}

let minting: Promise<unknown> = Promise.resolve();

async function x402Customer(chain: { base: LocalChain; payTo: `0x${string}` }) {
  while (running) {
    const account = await signUp();
    if (!account) {
      await sleep(200);
      continue;
    }
    const payer = privateKeyToAccount(generatePrivateKey());
    // One minter account: its transactions go one at a time, or two clients race for its nonce.
    minting = minting.then(() => mintTestToken(chain.base.rpcUrl, BASE_USDC, payer.address, 30_000_000n));
    await minting;
    const { header, nonce } = await signPayment(chain, payer, 30_000_000n);
    const intent: X402Intent = { nonce };
    x402Payments.push(intent);
    const paid = await api("POST", "/topups", {
      ip: account.ip,
      key: account.key,
      body: { amount: 30, coin: "USDCBASE" },
      headers: { "x-payment": header, "idempotency-key": randomUUID() },
    });
    intent.status = paid?.status;
    intent.ref = paid?.body.ref as string | undefined;
    if (paid && paid.status >= 400)
      violations.push(`x402 payment ${nonce}: answered ${paid.status} ${paid.text.slice(0, 200)}`);
    if (intent.ref) await order(account);
  }
}

async function dashboard() {
  const origin = `https://localhost:${HTTPS_PORT}`;
  while (running) {
    const account = accounts[randomInt(Math.max(1, accounts.length))];
    if (!account) {
      await sleep(500);
      continue;
    }
    const signedIn = await call("POST", "/bff/sign-in", {
      ip: account.ip,
      body: { login_token: account.loginToken },
      headers: { origin, "sec-fetch-site": "same-origin" },
    });
    const setCookie = signedIn?.headers["set-cookie"];
    const cookie = (Array.isArray(setCookie) ? setCookie : [setCookie ?? ""])
      .map((c) => c.split(";")[0])
      .join("; ");
    if (signedIn?.status !== 200 || !cookie) {
      await sleep(300);
      continue;
    }
    for (const page of ["/dashboard", "/dashboard/servers", "/dashboard/topups"]) {
      await call("GET", page, { ip: account.ip, cookie, headers: { accept: "text/html" } });
    }
    await call("GET", "/bff/servers", { ip: account.ip, cookie });
  }
}

async function reader() {
  const ip = freshIp();
  while (running) {
    await api("GET", "/catalog", { ip });
    await api("GET", "/health", { ip });
    await sleep(50);
  }
}

/** One address keeps signing up and sending bad keys through every instance: its limits must hold in total. */
async function limitProbe() {
  const badKey = `vpsk_${randomBytes(40).toString("base64url").replace(/[-_]/g, "A").slice(0, 49)}`;
  while (running) {
    const created = await api("POST", "/account", { ip: "127.0.9.9" });
    if (created) probe.signup.push(created.status);
    const bad = await api("GET", "/account", { ip: "127.0.9.10", key: badKey });
    if (bad) probe.badKey.push(bad.status);
    await sleep(400);
  }
}

// ---------------------------------------------------------------- consoles through nginx

const consoleStats = { opened: 0, dropped: 0, reconnected: 0, echoes: 0, lateEchoes: 0 };

/**
 * Holds one console open (ticket, then WebSocket through nginx) and types into it every second until it
 * closes; resolves with the close code. Echoes that do not come back within 10 s outside a fault are late.
 */
function holdConsole(account: Account, ticket: Record<string, unknown>): Promise<number> {
  return new Promise((resolve) => {
    const url = new URL(new URL(String(ticket.websocket_url)).pathname, `wss://localhost:${HTTPS_PORT}`);
    const ws = new WebSocket(url, [String(ticket.protocol), `${TICKET_PROTOCOL_PREFIX}${ticket.ticket}`], {
      ca,
      localAddress: account.ip,
      origin: `https://localhost:${HTTPS_PORT}`,
    });
    let output = "";
    let typed = 0;
    const waiting = new Map<string, number>();
    let timer: ReturnType<typeof setInterval> | undefined;
    ws.on("error", () => {});
    ws.on("unexpected-response", (_request, response) => {
      if ((response.statusCode ?? 0) < 500) violations.push(`console refused with ${response.statusCode}`);
      ws.terminate();
      resolve(1006);
    });
    ws.on("open", () => {
      consoleStats.opened += 1;
      timer = setInterval(() => {
        if (!running) {
          ws.close(1000);
          return;
        }
        for (const [mark, since] of waiting) {
          if (Date.now() - since > 10_000 && !inFault(since) && !inFault(Date.now())) {
            consoleStats.lateEchoes += 1;
            waiting.delete(mark);
          }
        }
        const mark = `c${++typed}x`;
        waiting.set(mark, Date.now());
        ws.send(Buffer.from(`echo ${mark}\r`));
      }, 1_000);
    });
    ws.on("message", (data, isBinary) => {
      if (!isBinary) return;
      output = (output + data.toString()).slice(-4096);
      for (const mark of waiting.keys()) {
        if (output.includes(`\r\n${mark}\r\n`)) {
          waiting.delete(mark);
          consoleStats.echoes += 1;
        }
      }
    });
    ws.on("close", (code) => {
      clearInterval(timer);
      resolve(code);
    });
  });
}

/** A customer at a console: when the instance holding it dies, it reconnects with a fresh ticket. */
async function consoleUser() {
  const account = await signUp();
  if (!account || !(await classicTopUp(account, 50))) return;
  const serverId = await order(account);
  if (serverId === undefined) return;
  while (running) {
    const server = await api("GET", `/servers/${serverId}`, { ip: account.ip, key: account.key });
    if (server?.body.status === "active") break;
    await sleep(300);
  }
  let dropped = false;
  while (running) {
    const ticket = await api("POST", `/servers/${serverId}/console`, { ip: account.ip, key: account.key });
    if (ticket?.status !== 201) {
      if (ticket) violations.push(`console ticket answered ${ticket.status}: ${ticket.text.slice(0, 200)}`);
      await sleep(500);
      continue;
    }
    const openedBefore = consoleStats.opened;
    const code = await holdConsole(account, ticket.body);
    const opened = consoleStats.opened > openedBefore;
    if (dropped && opened) {
      consoleStats.reconnected += 1;
      dropped = false;
    }
    if (!running) break;
    if (RECONNECT_CODES.has(code)) {
      // Open, then gone with its instance: the next round must reconnect.
      if (opened) {
        consoleStats.dropped += 1;
        dropped = true;
      }
      await sleep(300);
    } else {
      violations.push(`a console closed with ${code} though nothing asked it to`);
      return;
    }
  }
}

// ---------------------------------------------------------------- faults

async function fault(name: string, action: () => Promise<void>) {
  const started = Date.now();
  log(`fault: ${name}`);
  await action();
  faults.push(name);
  faultWindows.push([started, Date.now() + 3_000]);
  log(`fault over: ${name} (${Date.now() - started} ms)`);
}

// ---------------------------------------------------------------- checks and figures

const inFault = (at: number) => faultWindows.some(([from, to]) => at >= from && at <= to);
const quantile = (values: number[], q: number) => {
  if (values.length === 0) return "-";
  const sorted = [...values].sort((a, b) => a - b);
  return String(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
};

async function checkDatabase(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const query = async (sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows;
  try {
    const ledger = await checkLedger((sql) => query(sql));
    for (const problem of ledger.problems) violations.push(`ledger: ${problem}`);
    log(`ledger: ${ledger.accounts} accounts, ${ledger.entries} entries, ${ledger.problems.length} problems`);

    // Every x402 authorization a client sent: one authorization row, settled, credited by one ledger row.
    for (const payment of x402Payments) {
      const rows = await query(
        `SELECT x.state, x.topup_id, (SELECT count(*) FROM ledger_entries l WHERE l.reference =
           'x402:' || x.network || ':' || x.asset || ':' || x.payer || ':' || x.nonce) AS credits
         FROM x402_authorizations x WHERE lower(x.nonce) = lower($1)`,
        [payment.nonce],
      );
      if (payment.status === undefined) {
        violations.push(`x402 ${payment.nonce}: the client never got an answer`);
      } else if (rows.length !== 1 || rows[0]?.state !== "settled" || Number(rows[0]?.credits) !== 1) {
        violations.push(`x402 ${payment.nonce}: ${rows.length} rows, ${JSON.stringify(rows)}`);
      }
    }

    // Every order a client meant: answered, and, when it succeeded, one server that is its own.
    const seen = new Map<number, string>();
    for (const intent of orders) {
      if (intent.status === undefined)
        violations.push(`order ${intent.idem}: the client never got an answer`);
      if (intent.serverId === undefined) continue;
      if (seen.has(intent.serverId)) violations.push(`server ${intent.serverId} answered two orders`);
      seen.set(intent.serverId, intent.idem);
    }
    const servers = await query(
      `SELECT s.id, (SELECT count(*) FROM ledger_entries l WHERE l.reference = 'order:server:' || s.id) AS charges
       FROM servers s`,
    );
    for (const server of servers) {
      if (!seen.has(Number(server.id)))
        violations.push(`server ${server.id} exists but no client order made it`);
      if (Number(server.charges) !== 1)
        violations.push(`server ${server.id}: charged ${server.charges} times`);
    }
    const intended = [...seen.keys()];
    const existing = new Set(servers.map((s) => Number(s.id)));
    for (const id of intended)
      if (!existing.has(id)) violations.push(`order for server ${id} answered, server missing`);
    for (const row of await query(
      `SELECT l.reference FROM ledger_entries l WHERE (l.reference LIKE 'order:server:%' OR l.reference LIKE 'renewal:server:%')
         AND NOT EXISTS (SELECT 1 FROM servers s WHERE l.reference LIKE '%:server:' || s.id OR l.reference LIKE '%:server:' || s.id || ':%')`,
    )) {
      violations.push(`ledger ${row.reference}: a charge without its server`);
    }
    // Renewals: one charge per renewal that succeeded, none for the others.
    const renewedCount = new Map<number, number>();
    for (const renewal of renewals) {
      if (renewal.status === undefined)
        violations.push(`renewal ${renewal.idem}: the client never got an answer`);
      if (renewal.status === 200 || renewal.status === 201) {
        renewedCount.set(renewal.serverId, (renewedCount.get(renewal.serverId) ?? 0) + 1);
      }
    }
    for (const row of await query(
      `SELECT split_part(reference, ':', 3)::int AS server, count(*) AS n FROM ledger_entries
       WHERE reference LIKE 'renewal:server:%' GROUP BY 1`,
    )) {
      if ((renewedCount.get(Number(row.server)) ?? 0) !== Number(row.n)) {
        violations.push(
          `server ${row.server}: ${row.n} renewal charges, ${renewedCount.get(Number(row.server)) ?? 0} renewals answered`,
        );
      }
    }
    for (const [server, n] of renewedCount) {
      const [row] = await query(`SELECT count(*) AS n FROM ledger_entries WHERE reference LIKE $1`, [
        `renewal:server:${server}:%`,
      ]);
      if (Number(row?.n) !== n)
        violations.push(`server ${server}: ${n} renewals answered, ${row?.n} charged`);
    }
    return { servers: servers.length, ledger };
  } finally {
    await client.end();
  }
}

function report() {
  const byStatus = new Map<string, number>();
  for (const sample of samples)
    byStatus.set(String(sample.status), (byStatus.get(String(sample.status)) ?? 0) + 1);
  console.log(
    `\nrequests: ${samples.length} (attempts, retries included); retries: ${retries}; gave up: ${gaveUp}`,
  );
  console.log(
    `by status: ${[...byStatus]
      .sort()
      .map(([s, n]) => `${s}=${n}`)
      .join(" ")}`,
  );
  console.log(`faults injected: ${faults.length}: ${faults.join("; ")}`);
  const failing = samples.filter((s) => s.status === "conn" || s.status >= 500);
  const failingBy = new Map<string, number>();
  for (const s of failing)
    failingBy.set(`${s.route} ${s.status}`, (failingBy.get(`${s.route} ${s.status}`) ?? 0) + 1);
  console.log(
    `5xx and connection errors: ${[...failingBy].map(([k, n]) => `${k} x${n}`).join("; ") || "none"}`,
  );
  console.log(
    `\n${"route".padEnd(42)} ${"n ok".padStart(6)} ${"p50 ok".padStart(7)} ${"p99 ok".padStart(7)} | ${"n fault".padStart(7)} ${"p50 f".padStart(6)} ${"p99 f".padStart(6)}  (ms)`,
  );
  const routes = [...new Set(samples.map((s) => s.route))].sort();
  for (const route of routes) {
    const mine = samples.filter((s) => s.route === route);
    const calm = mine.filter((s) => !inFault(s.at)).map((s) => s.ms);
    const rough = mine.filter((s) => inFault(s.at)).map((s) => s.ms);
    console.log(
      `${route.padEnd(42)} ${String(calm.length).padStart(6)} ${quantile(calm, 0.5).padStart(7)} ${quantile(calm, 0.99).padStart(7)} | ${String(rough.length).padStart(7)} ${quantile(rough, 0.5).padStart(6)} ${quantile(rough, 0.99).padStart(6)}`,
    );
  }
}

// ---------------------------------------------------------------- the run

async function main() {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID")))
    throw new Error("No production build: run `npm run build` first.");
  t0 = Date.now();
  const database = startPostgres();
  log(`postgres on ${PG_PORT}`);
  const chain = await startChain();
  log(`anvil at ${chain.base.rpcUrl}`);
  const dataDir = mkdtempSync(path.join(tmpdir(), "vps-chaos-data-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = {
    NEXT_TELEMETRY_DISABLED: "1",
    APP_MODE: "demo",
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    PUBLIC_BASE_URL: `https://localhost:${HTTPS_PORT}`,
    TRUST_PROXY_HOPS: "1",
    X402_RPC_URL: chain.base.rpcUrl,
    X402_PAY_TO: chain.payTo,
    X402_RELAYER_PRIVATE_KEY: chain.relayerKey,
    RATE_LIMIT_ACCOUNT_CREATE: `${SIGNUP_LIMIT}/1h`,
    RATE_LIMIT_AUTH_FAILURES: `${BAD_KEY_LIMIT}/1h`,
    PROVISION_DELAY_SECONDS: "1",
    WATCHER_INTERVAL_MS: "500",
  };
  const instances: Instance[] = APP_PORTS.map((port) => ({ port, output: "" }));
  cleanups.push(() => {
    for (const instance of instances) killInstance(instance, "SIGKILL");
  });
  // The first instance migrates and writes the shared demo keys; the others start after it.
  const [first, ...rest] = instances as [Instance, ...Instance[]];
  await waitHealthy(first.port, spawnInstance(first, env));
  await Promise.all(rest.map((instance) => waitHealthy(instance.port, spawnInstance(instance, env))));
  log(`instances on ${APP_PORTS.join(", ")}`);
  const nginx = await startNginx({ app: APP_PORTS, http: HTTP_PORT, https: HTTPS_PORT });
  cleanups.push(nginx.stop);
  ca = nginx.ca;
  log(`nginx on https://localhost:${HTTPS_PORT}`);

  const duration = SECONDS * 1000;
  const begin = Date.now();
  // A client that breaks (its own fault, not the service's) is reported and stops; the run goes on.
  const clients = [
    ...Array.from({ length: 4 }, customer),
    ...Array.from({ length: 2 }, () => x402Customer(chain)),
    ...Array.from({ length: 2 }, dashboard),
    ...Array.from({ length: 2 }, reader),
    ...Array.from({ length: 3 }, consoleUser),
    limitProbe(),
  ].map((client) =>
    client.catch((error: Error) => violations.push(`a client stopped: ${error.message.split("\n")[0]}`)),
  );
  const restartPostgres = async () => {
    database.stop();
    await sleep(2_000);
    database.start();
  };
  const victim = instances[1] as Instance;
  const schedule: [number, string, () => Promise<void>][] = [
    [0.2, "PostgreSQL restarted (stopped 2 s)", restartPostgres],
    [
      0.45,
      `instance ${victim.port} killed with SIGKILL and started again`,
      async () => {
        killInstance(victim, "SIGKILL");
        await sleep(2_000);
        await waitHealthy(victim.port, spawnInstance(victim, env));
      },
    ],
    [0.7, "PostgreSQL restarted again (stopped 2 s)", restartPostgres],
  ];
  for (const [at, name, action] of schedule) {
    const wait = begin + at * duration - Date.now();
    if (wait > 0) await sleep(wait);
    await fault(name, action);
  }
  await sleep(Math.max(0, begin + duration - Date.now()));
  running = false;
  hardStop = Date.now() + GIVE_UP_MS;
  log("clients finishing");
  await Promise.all(clients);
  log("clients done");

  const checked = await checkDatabase(database.url);
  // Any 500, API or dashboard page, during a fault or not: pages ride a restart out by retrying their reads.
  const fiveHundreds = samples.filter((s) => s.status === 500);
  if (fiveHundreds.length > 0) {
    violations.push(
      `${fiveHundreds.length} responses were 500: ${[...new Set(fiveHundreds.map((s) => s.route))].join(", ")}`,
    );
  }
  const signups = probe.signup.filter((s) => s === 201).length;
  const badKeys = probe.badKey.filter((s) => s === 401).length;
  if (signups > SIGNUP_LIMIT)
    violations.push(`sign-up limit: ${signups} accounts from one address, limit ${SIGNUP_LIMIT}`);
  if (badKeys > BAD_KEY_LIMIT)
    violations.push(`bad-key limit: ${badKeys} 401s to one address, limit ${BAD_KEY_LIMIT}`);
  if (!probe.signup.includes(429) || !probe.badKey.includes(429))
    violations.push("the limit probe never reached a limit");
  if (faults.length !== 3) violations.push(`only ${faults.length} of 3 faults were injected`);
  if (consoleStats.opened === 0 || consoleStats.echoes === 0) violations.push("no console ever answered");
  if (consoleStats.reconnected < consoleStats.dropped)
    violations.push(
      `consoles: ${consoleStats.dropped} dropped, only ${consoleStats.reconnected} reconnected`,
    );
  if (consoleStats.lateEchoes > 0) violations.push(`consoles: ${consoleStats.lateEchoes} echoes came late`);
  // A console ticket travels in the WebSocket handshake's subprotocol header, never in a URL: no log holds one.
  const logs = {
    "nginx's access log": readFileSync(nginx.accessLog, "utf8"),
    "nginx's error log": readFileSync(nginx.errorLog, "utf8"),
    ...Object.fromEntries(
      instances.map((instance) => [`instance ${instance.port}'s output`, instance.output]),
    ),
  };
  const consoleRequests = logs["nginx's access log"].split("\n").filter((line) => line.includes("/console"));
  if (consoleRequests.length === 0) violations.push("nginx's access log shows no console request");
  const ticketsIn = Object.entries(logs).filter(([, text]) => text.includes("vpsct_"));
  for (const [where] of ticketsIn) violations.push(`a console ticket is in ${where}`);

  report();
  console.log(
    `\naccounts ${accounts.length}; orders ${orders.length} (${orders.filter((o) => o.serverId).length} servers); renewals ${renewals.length}; ` +
      `x402 payments ${x402Payments.length}; servers in the database ${checked.servers}`,
  );
  console.log(
    `consoles through nginx: opened ${consoleStats.opened}, dropped ${consoleStats.dropped} (their instance died), ` +
      `reconnected with a fresh ticket ${consoleStats.reconnected}, echoes ${consoleStats.echoes}; ` +
      `${consoleRequests.length} console requests in nginx's access log; logs holding a ticket: ${ticketsIn.length} of ${Object.keys(logs).length}`,
  );
  console.log(
    `rate limits across 3 instances: sign-ups from one address ${signups}/${SIGNUP_LIMIT} allowed of ${probe.signup.length}; bad keys ${badKeys}/${BAD_KEY_LIMIT} answered 401 of ${probe.badKey.length}`,
  );
  const logDir = path.join(tmpdir(), "vps-chaos-logs");
  mkdirSync(logDir, { recursive: true });
  for (const instance of instances)
    writeFileSync(path.join(logDir, `instance-${instance.port}.log`), instance.output);
  console.log(`instance logs: ${logDir}`);
  if (violations.length > 0) {
    console.log(`\nVIOLATIONS (${violations.length}):`);
    for (const violation of violations.slice(0, 50)) console.log(`  ${violation}`);
    for (const instance of instances) {
      const errors = instance.output
        .split("\n")
        .filter((line) => /unhandled error|Error/.test(line))
        .slice(-15);
      if (errors.length) console.log(`\ninstance ${instance.port} errors:\n${errors.join("\n")}`);
    }
    return 1;
  }
  console.log("\nchaos run: no violations");
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error("chaos run failed:", error);
} finally {
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch {}
  }
}
process.exit(code);
