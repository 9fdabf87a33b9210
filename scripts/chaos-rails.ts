/**
 * The chaos run over the real rails: one app with the libvirt provisioner on this machine's libvirtd (a local
 * host, and the same libvirtd behind a local sshd as a remote host over qemu+libssh), booting the tiny test
 * guest, and watching a real litecoind (with a peer), monerod (through a view-only wallet) and a local anvil,
 * while customers order, pay, snapshot, restore and hold a console open through nginx with the deploy kit's
 * site (deploy/nginx/vps.conf). A seeded schedule injects the faults production meets below the app:
 *
 * - libvirtd killed (SIGKILL) during a build, a snapshot and a restore, and started again seconds later;
 * - the remote host's sshd stopped for CHAOS_RAILS_CUT_SECONDS (default 60) while an order builds there;
 * - litecoind stopped mid-poll for a few seconds while a payment confirms, then started again;
 * - monerod stopped mid-poll for a few seconds while a payment confirms, then started again (the service's
 *   view-only wallet stays up and loses its daemon);
 * - litecoind cut off from its one peer (`setnetworkactive false`) while the peer mines the blocks that
 *   confirm a payment, then back in touch;
 * - the servers' storage pool made full while an order and a snapshot arrive, then freed;
 * - a reorg deeper than the confirmations asked on litecoind, and one on anvil (ETH), after the credit.
 *
 * Then it checks what must hold and prints it as a table: no 500 from the API; every paid order is a running
 * server or refunded in full (never both, never neither); the operator's host view agrees with libvirt (no
 * domain without a live row, no live row without its domain); every deposit credited exactly once, the
 * reorged ones flagged for the operator with the ledger balanced; the console either closed with a reason or
 * still echoes; /health and the operator console said what was wrong while it was wrong and cleared after.
 * It also prints what the customers saw: how long each order waited, the statuses and reasons the API gave
 * meanwhile, and the events their webhooks received. Exits non-zero on any broken invariant.
 *
 *   npm run build && npm run guest:build-tiny && npm run chaos:rails     (as root: it restarts libvirtd)
 *
 * CHAOS_SEED (default 7) fixes the schedule's offsets. Everything runs on loopback; domains, volumes and
 * the pool use the prefix CHAOS_RAILS_PREFIX (default "vpsr-") and are removed at the end.
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { createPublicClient, createWalletClient, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type RunningApp, startApp } from "../e2e/support/app-server";
import {
  type Litecoind,
  type MoneroNodes,
  startFundedLitecoind,
  startLitecoind,
  startMonero,
} from "../e2e/support/coin-nodes";
import { type ConsoleConnection, openConsole } from "../e2e/support/console-client";
import { checkLedger } from "../e2e/support/ledger-check";
import { httpsJson, type Nginx, nginxAgent, startNginx } from "../e2e/support/nginx";
import { addOperator, type OperatorSession, operatorApi, signInOperator } from "../e2e/support/operator";
import { reorgAway } from "../e2e/support/reorg";
import { type Receiver, startReceiver, verified } from "../e2e/support/webhook-receiver";
import { URI, virsh, volumes } from "../e2e/vm/host";
import { type LocalSshd, startLocalSshd } from "../e2e/vm/sshd";
import { type LocalChain, startAnvil } from "../lib/demo-chain/anvil";
import { fundNativeBalance } from "../lib/demo-chain/test-token";
import { generateDemoWatchOnlyKeys, watchOnlyKeyEnv } from "../lib/rails/addresses";
import { moneroPrimaryAddress } from "../lib/rails/monero/address";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const SEED = Number(process.env.CHAOS_SEED ?? 7);
const CUT_SECONDS = Number(process.env.CHAOS_RAILS_CUT_SECONDS ?? 60);
const PREFIX = process.env.CHAOS_RAILS_PREFIX ?? "vpsr-";
const POOL = `${PREFIX}disks`;
const IMAGES_DIR = process.env.TINY_GUEST_DIR ?? "/var/lib/vps/test-images";
const DISKS_DIR = process.env.CHAOS_RAILS_DISKS_DIR ?? "/var/lib/vps/chaos-rails-servers";
const SSH_PORT_BASE = Number(process.env.CHAOS_RAILS_SSH_PORT_BASE ?? 24600);
/** The app, and nginx's HTTPS and HTTP ports in front of it: below the SSH forwards and the run's sshd. */
const APP_PORT = SSH_PORT_BASE - 10;
const POOL_IMAGE = `${DISKS_DIR}.img`;
/** How long an order, snapshot or restore may take before the run calls it stuck. */
const SETTLE_MS = 300_000;

let t0 = Date.now();
const log = (message: string) => console.log(`[rails ${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The schedule's offsets: the n-th is drawn from a hash of CHAOS_SEED and n, the same on every run. */
function seeded(seed: number) {
  let drawn = 0;
  return (min: number, max: number) => {
    const digest = createHash("sha256").update(`${seed}:${drawn++}`).digest();
    return Math.round(min + (digest.readUInt32BE(0) / 2 ** 32) * (max - min));
  };
}
const offset = seeded(SEED);

// ---------------------------------------------------------------- what happened

type Invariant = { name: string; held: boolean; evidence: string };
const invariants: Invariant[] = [];
const holds = (name: string, held: boolean, evidence: string) => invariants.push({ name, held, evidence });

/** Every API answer: status per route, for "no 500". */
const answers: { route: string; status: number; at: number }[] = [];
const faults: { name: string; from: number; to: number }[] = [];
/** What a customer saw while waiting: per order, every distinct (status, reason) and how long it took. */
type Seen = { label: string; waitedMs: number; states: string[]; outcome: string };
const seen: Seen[] = [];

let app: RunningApp;
/** What the run started, stopped in reverse at its end (or at its deadline). */
const cleanups: (() => Promise<unknown>)[] = [];
/** The app itself: the operator's calls go here, as an operator on the host would. */
let base = "";
/** nginx with the deploy kit's site in front of the app: every customer call goes through it. */
let gateway: Nginx;
let gatewayAgent: https.Agent;

async function api(
  method: string,
  route: string,
  key?: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const answer = await httpsJson(gateway, gatewayAgent, method, `/api/v1${route}`, headers, body);
  answers.push({
    route: `${method} ${route.replace(/\/\d+|\/tp_[\w-]+/g, "/:id")}`,
    status: answer.status,
    at: Date.now(),
  });
  return { status: answer.status, body: answer.body };
}

async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
  what: string,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`${what}: still waiting after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await sleep(500);
  }
}

async function fault(name: string, action: () => Promise<void>) {
  const from = Date.now();
  log(`fault: ${name}`);
  await action();
  faults.push({ name, from, to: Date.now() });
  log(`fault over: ${name} (${((Date.now() - from) / 1000).toFixed(1)} s)`);
}

// ---------------------------------------------------------------- the rails

async function libvirtdUp(timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await virsh("version")).ok) {
    if (Date.now() > deadline) throw new Error("libvirtd did not come back");
    await sleep(250);
  }
}

/** libvirtd killed outright (as a crash or an OOM kill would), down for `downMs`, then started again. */
async function killLibvirtd(downMs: number) {
  execFileSync("pkill", ["-KILL", "-x", "libvirtd"]);
  await sleep(downMs);
  execFileSync("libvirtd", ["-d"]);
  await libvirtdUp();
}

async function ourDomains(): Promise<{ name: string; running: boolean }[]> {
  const all = await virsh("list", "--all", "--name");
  const running = await virsh("list", "--state-running", "--name");
  const isRunning = new Set(running.out.split("\n").map((name) => name.trim()));
  return all.out
    .split("\n")
    .map((name) => name.trim())
    .filter((name) => name.startsWith(PREFIX))
    .map((name) => ({ name, running: isRunning.has(name) }));
}

async function cleanUp() {
  for (const { name } of await ourDomains()) {
    await virsh("destroy", name);
    await virsh("undefine", name);
  }
  for (const volume of await volumes(POOL)) {
    if (volume.startsWith(PREFIX)) await virsh("vol-delete", "--pool", POOL, volume);
  }
  await virsh("pool-destroy", POOL);
  await virsh("pool-undefine", POOL);
  await run("umount", [DISKS_DIR]).catch(() => undefined);
  rmSync(DISKS_DIR, { recursive: true, force: true });
  rmSync(POOL_IMAGE, { force: true });
}

/**
 * The pool's folder is a small filesystem of its own (a loop-mounted file), so the run can fill it without
 * touching the machine's disk.
 */
async function mountSmallPool() {
  mkdirSync(DISKS_DIR, { recursive: true });
  await run("truncate", ["-s", "160M", POOL_IMAGE]);
  // No blocks reserved for root (the app runs as root): full is full.
  await run("mkfs.ext4", ["-q", "-F", "-m", "0", POOL_IMAGE]);
  await run("mount", ["-o", "loop", POOL_IMAGE, DISKS_DIR]);
}

// ---------------------------------------------------------------- customers

type Customer = { key: string; webhookSecret: string; path: string };

async function customer(receiver: Receiver, name: string, fundUsd: number): Promise<Customer> {
  const created = await api("POST", "/account");
  const key = created.body.api_key as string;
  const hook = await api("POST", "/webhooks", key, { url: `${receiver.url}/${name}` });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
  if (fundUsd > 0) {
    const topup = await api("POST", "/topups", key, { amount: fundUsd, coin: "USDTTRC" });
    const ref = topup.body.ref as string;
    await api("POST", `/demo/topups/${ref}/pay`, key, {});
    await waitFor(
      () => api("GET", `/topups/${ref}`, key),
      (t) => t.body.status === "completed",
      60_000,
      "funding",
    );
  }
  return { key, webhookSecret: hook.body.secret as string, path: `/${name}` };
}

const balanceOf = async (c: Customer) => (await api("GET", "/account", c.key)).body.balance_usd as number;

type Server = { id: number; status: string; status_reason: string | null; power_state: string | null };

/** Polls a server until `done`, noting every distinct status and reason the customer was shown meanwhile. */
async function watchServer(
  c: Customer,
  id: number,
  label: string,
  done: (s: Server) => boolean,
  from = Date.now(),
) {
  const states: string[] = [];
  const server = await waitFor(
    async () => {
      const answer = await api("GET", `/servers/${id}`, c.key);
      const s = answer.body as unknown as Server;
      const state =
        answer.status === 200
          ? `${s.status}${s.status_reason ? `: ${s.status_reason}` : ""}`
          : `answer ${answer.status} ${JSON.stringify(answer.body)}`;
      if (states.at(-1) !== state) states.push(state);
      return s;
    },
    done,
    SETTLE_MS,
    label,
  );
  seen.push({ label, waitedMs: Date.now() - from, states, outcome: states.at(-1) ?? "" });
  return server;
}

type Order = { customer: Customer; label: string; funded: number; price: number; id: number; at: number };

async function order(c: Customer, label: string, location: string, hostname: string): Promise<Order> {
  const funded = await balanceOf(c);
  const at = Date.now();
  const placed = await api("POST", "/servers", c.key, { plan: "pup", location, os: "debian-12", hostname });
  if (placed.status !== 201)
    throw new Error(`${label}: order ${placed.status} ${JSON.stringify(placed.body)}`);
  const price = funded - (await balanceOf(c));
  return { customer: c, label, funded, price, id: placed.body.id as number, at };
}

/** Out of `provisioning` (an answer that is no server, such as a 404, is not). */
const settled = (s: Server) => s.status !== undefined && s.status !== "provisioning";

// ---------------------------------------------------------------- the schedule

/** An order on the local host with libvirtd killed during its build. */
async function buildThroughLibvirtdCrash(
  receiver: Receiver,
): Promise<{ order: Order; console?: ConsoleConnection }> {
  const c = await customer(receiver, "local", 40);
  const placed = await order(
    c,
    "order on the local host, libvirtd killed during the build",
    "nl",
    "rails-local",
  );
  await sleep(offset(500, 3_000));
  await fault("libvirtd killed during a build", () => killLibvirtd(offset(3_000, 8_000)));
  const server = await watchServer(c, placed.id, placed.label, settled, placed.at);
  if (server.status !== "active") return { order: placed };

  // A console held open across the next crashes: it must close with a reason or keep working.
  const ticket = await api("POST", `/servers/${placed.id}/console`, c.key);
  const heldConsole =
    ticket.status === 201
      ? await openConsole(
          String(ticket.body.websocket_url),
          String(ticket.body.ticket),
          gateway.origin,
          gateway.ca,
        )
      : undefined;

  // A snapshot with libvirtd killed while it is taken: it ends available or failed, never stuck.
  const taken = await api("POST", `/servers/${placed.id}/snapshots`, c.key, { name: "before the storm" });
  await sleep(offset(200, 1_500));
  await fault("libvirtd killed during a snapshot", () => killLibvirtd(offset(2_000, 5_000)));
  const snapshotId = taken.body.id as number;
  const snapshot = await settledSnapshot(placed, snapshotId);
  holds(
    "a snapshot taken through a libvirtd crash ends available or failed",
    snapshot?.state === "available" || snapshot?.state === "failed",
    `snapshot ${snapshotId}: ${snapshot?.state}`,
  );
  if (snapshot?.state === "available") {
    const restoreAt = Date.now();
    const restoring = await api("POST", `/servers/${placed.id}/snapshots/${snapshotId}/restore`, c.key, {
      confirm: "rails-local",
    });
    await sleep(offset(300, 2_000));
    await fault("libvirtd killed during a restore", () => killLibvirtd(offset(2_000, 5_000)));
    const restored = await watchServer(
      c,
      placed.id,
      "restore with libvirtd killed during it",
      settled,
      restoreAt,
    );
    holds(
      "a restore through a libvirtd crash ends with the server active",
      restoring.status === 202 && restored.status === "active",
      `restore ${restoring.status}, then ${restored.status} ${restored.power_state ?? ""} ${restored.status_reason ?? ""}`,
    );
  }
  return { order: placed, console: heldConsole };
}

/**
 * The servers' storage made full (a filler file takes all but a few KiB of the small filesystem the pool lives
 * on) while an order and a snapshot arrive; then freed, and both are asked again.
 */
async function storageFull(receiver: Receiver, heldServer: Order | undefined): Promise<Order[]> {
  const c = await customer(receiver, "full", 40);
  const placedOrders: Order[] = [];
  const filler = path.join(DISKS_DIR, "filler");
  const asked: string[] = [];
  await fault("the servers' storage pool full", async () => {
    const { stdout } = await run("df", ["--output=avail", "-B1", DISKS_DIR]);
    const free = Number(stdout.trim().split("\n").at(-1));
    await run("fallocate", ["-l", String(Math.max(free - 64 * 1024, 0)), filler]);
    try {
      const placed = await api("POST", "/servers", c.key, {
        plan: "pup",
        location: "nl",
        os: "debian-12",
        hostname: "rails-full",
      });
      asked.push(`order: ${placed.status}${placed.body.error ? ` ${placed.body.error}` : ""}`);
      if (placed.status === 201) {
        const order = {
          customer: c,
          label: "order while the pool is full",
          funded: 40,
          price: 40 - (await balanceOf(c)),
          id: placed.body.id as number,
          at: Date.now(),
        };
        placedOrders.push(order);
        await watchServer(c, order.id, order.label, settled, order.at);
      }
      if (heldServer) {
        const taken = await api("POST", `/servers/${heldServer.id}/snapshots`, heldServer.customer.key, {
          name: "into a full pool",
        });
        const snapshot =
          taken.status === 202 ? await settledSnapshot(heldServer, taken.body.id as number) : undefined;
        asked.push(`snapshot: ${taken.status} -> ${snapshot?.state ?? "refused"}`);
        holds(
          "a snapshot into a full pool ends failed with a reason (or is refused), never stuck",
          taken.status !== 202 || snapshot?.state === "failed",
          asked.at(-1) ?? "",
        );
        if (snapshot?.state === "failed") {
          await api("DELETE", `/servers/${heldServer.id}/snapshots/${snapshot.id}`, heldServer.customer.key);
        }
      }
    } finally {
      rmSync(filler, { force: true });
    }
  });
  if (heldServer) {
    // QEMU paused the running server at its first write into the full pool; with room again it goes on.
    const domain = `${PREFIX}${heldServer.id}`;
    const runsAgain = await waitFor(
      async () => (await ourDomains()).some((d) => d.name === domain && d.running),
      (running) => running,
      90_000,
      "the held server running again",
    ).catch(() => false);
    holds(
      "a server paused by the full pool runs again once there is room",
      runsAgain,
      `${domain}: ${(await virsh("domstate", domain, "--reason")).out}`,
    );
  }
  // Another account, so each account's balance tells its one order's story.
  const later = await customer(receiver, "roomy", 40);
  const again = await order(later, "order once the pool has room again", "nl", "rails-roomy");
  placedOrders.push(again);
  const built = await watchServer(later, again.id, again.label, settled, again.at);
  holds(
    "once the pool has room again an order builds",
    built.status === "active",
    `while full: ${asked.join("; ")}; after: ${built.status} ${built.status_reason ?? ""}`,
  );
  return placedOrders;
}

async function settledSnapshot(owner: Order, snapshotId: number) {
  return waitFor(
    async () =>
      (
        (await api("GET", `/servers/${owner.id}/snapshots`, owner.customer.key)).body.snapshots as {
          id: number;
          state: string;
        }[]
      ).find((s) => s.id === snapshotId),
    (s) => s?.state !== "creating",
    SETTLE_MS,
    "snapshot",
  );
}

/** An order on the remote host with its sshd stopped for CUT_SECONDS while it builds. */
async function buildThroughHostOutage(
  receiver: Receiver,
  sshd: LocalSshd,
  operator: OperatorSession,
): Promise<Order> {
  const c = await customer(receiver, "remote", 40);
  const placed = await order(
    c,
    `order on the remote host, its SSH cut for ${CUT_SECONDS} s`,
    "se",
    "rails-remote",
  );
  // Watched from the order on, through the outage: what the customer is told while the host is away.
  const watched = watchServer(c, placed.id, placed.label, settled, placed.at);
  await sleep(offset(200, 2_000));
  const hostStates = new Set<string>();
  await fault(`the remote host's SSH cut for ${CUT_SECONDS} s`, async () => {
    await sshd.cut();
    const until = Date.now() + CUT_SECONDS * 1000;
    while (Date.now() < until) {
      hostStates.add(await remoteHostState(operator));
      await sleep(3_000);
    }
    await sshd.restore();
  });
  const server = await watched;
  const after = await waitFor(
    () => remoteHostState(operator),
    (state) => state === "ok",
    60_000,
    "remote host view",
  ).catch((error: Error) => `${error.message} (${lastHostError})`);
  holds(
    "the operator's host view showed the remote host unreachable while cut, and ok after",
    hostStates.has("unreachable") && after === "ok",
    `during: ${[...hostStates].join(", ")}; after: ${after}; the order ended ${server.status}`,
  );
  return placed;
}

let lastHostError = "";
async function remoteHostState(operator: OperatorSession): Promise<string> {
  const answer = await operatorApi(base, operator, "/hosts?fresh=1");
  const hosts = (answer.body.hosts ?? []) as { name: string; libvirt: { status: string; error?: string } }[];
  const libvirt = hosts.find((host) => host.name === "remote-1")?.libvirt;
  if (libvirt?.error) lastHostError = libvirt.error;
  return libvirt?.status ?? `answer ${answer.status}`;
}

type Watcher = { name: string; status: string; flagged_payments: number };
/** A deposit watcher as /health reports it, by name (`utxo:litecoin`, `evm:ethereum`). */
const watcherNamed = (name: string) => async () => {
  const health = await api("GET", "/health");
  // An answer without the list (a gateway error) is kept among the answers, with its status, for the report.
  return (health.body.watchers as Watcher[] | undefined)?.find((w) => w.name === name);
};
const litecoinWatcher = watcherNamed("utxo:litecoin");

/**
 * A watcher's status read every 500 ms until `stop`, which resolves with every status seen; a read that fails
 * (a gateway error) counts as "absent" instead of ending the run.
 */
function sampleStatuses(read: () => Promise<Watcher | undefined>) {
  const seenStatuses = new Set<string>();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      seenStatuses.add((await read().catch(() => undefined))?.status ?? "absent");
      await sleep(500);
    }
  })();
  return {
    stop: async () => {
      sampling = false;
      await sampler;
      return seenStatuses;
    },
  };
}

type Topup = {
  status: string;
  credited_usd: number;
  confirmations_required: number;
  payments: { confirmations: number }[];
};

/** Connects our litecoind to its peer (again: a restart or a cut loses the connection) and waits for it. */
async function peerUp(ltc: Litecoind, peer: Litecoind) {
  await ltc.rpc("setnetworkactive", [true]);
  await ltc.rpc("addnode", [peer.peerAddress, "onetry"]);
  await waitFor(
    () => ltc.rpc<number>("getconnectioncount"),
    (count) => count > 0,
    30_000,
    "litecoind peered",
  );
}

/**
 * Three litecoin deposits: one confirming while the node is stopped mid-poll and started again, one confirmed
 * by its peer while our node is cut off from it, one credited and then reorged out by a longer chain without
 * it (deeper than the confirmations asked).
 */
async function depositsThroughNodeFaults(
  receiver: Receiver,
  ltc: Litecoind & { miner: string },
  peer: Litecoind,
) {
  const mine = (blocks: number) => ltc.rpc<string[]>("generatetoaddress", [blocks, ltc.miner], "payer");
  const payAndSee = async (c: Customer, usd: number) => {
    const created = (await api("POST", "/topups", c.key, { amount: usd, coin: "LTC" })).body;
    const txid = await ltc.rpc<string>(
      "sendtoaddress",
      [created.deposit_address, created.deposit_amount],
      "payer",
    );
    const read = async () => (await api("GET", `/topups/${created.ref}`, c.key)).body as unknown as Topup;
    await waitFor(read, (t) => t.payments.length > 0, 60_000, "payment seen");
    return { ref: created.ref as string, txid, read, required: created.confirmations_required as number };
  };

  // 1. The node stops mid-poll while the payment confirms.
  const first = await customer(receiver, "deposit-restart", 0);
  const restartPay = await payAndSee(first, 60);
  await mine(1);
  const watcherStates = sampleStatuses(litecoinWatcher);
  await fault("litecoind stopped mid-poll, then started again", async () => {
    await ltc.restart(offset(4_000, 8_000));
    await peerUp(ltc, peer);
  });
  await mine(restartPay.required);
  const credited = await waitFor(
    restartPay.read,
    (t) => t.status === "completed",
    120_000,
    "credit after restart",
  );
  const afterRestart = await waitFor(litecoinWatcher, (w) => w?.status === "ok", 60_000, "watcher ok");
  const during = await watcherStates.stop();
  holds(
    "/health said the litecoin watcher could not reach its node while it was down, and ok after",
    during.has("unreachable") && afterRestart?.status === "ok",
    `during: ${[...during].join(", ")}; after: ${afterRestart?.status}`,
  );
  holds(
    "a deposit confirming across a node restart is credited exactly once",
    credited.credited_usd === 60 && (await balanceOf(first)) === 60,
    `credited ${credited.credited_usd}, balance ${await balanceOf(first)}`,
  );

  // 2. Cut off from its peer while the peer mines the payment's confirmations: our node answers every call
  //    and sees its own tip as current; only its peers tell (WATCHER_MIN_PEERS).
  const cutOff = await customer(receiver, "deposit-partition", 0);
  const partitionPay = await payAndSee(cutOff, 40);
  await waitFor(
    () => peer.rpc<string[]>("getrawmempool"),
    (pool) => pool.includes(partitionPay.txid),
    30_000,
    "payment relayed to the peer",
  );
  const cutStates = new Set<string>();
  const paidAt = Date.now();
  const partitionStates: string[] = [];
  await fault("litecoind cut off from its peer while the peer mines", async () => {
    await ltc.rpc("setnetworkactive", [false]);
    await peer.rpc("generatetoaddress", [partitionPay.required, ltc.miner]);
    const until = Date.now() + offset(8_000, 15_000);
    while (Date.now() < until) {
      const watcher = await litecoinWatcher();
      cutStates.add(watcher?.status ?? "absent");
      const topup = await partitionPay.read();
      const state = `${topup.status}, ${topup.payments[0]?.confirmations ?? 0} confirmations`;
      if (partitionStates.at(-1) !== state) partitionStates.push(state);
      await sleep(500);
    }
    await peerUp(ltc, peer);
  });
  const caughtUp = await waitFor(
    partitionPay.read,
    (t) => t.status === "completed",
    120_000,
    "credit after the partition",
  );
  partitionStates.push(`${caughtUp.status}, credited ${caughtUp.credited_usd} USD`);
  seen.push({
    label: "LTC deposit confirmed by the peer while our node was cut off",
    waitedMs: Date.now() - paidAt,
    states: partitionStates,
    outcome: caughtUp.status,
  });
  const afterPartition = await waitFor(litecoinWatcher, (w) => w?.status === "ok", 60_000, "watcher ok");
  holds(
    "/health said the litecoin watcher's node was behind while cut off from its peer, and ok after",
    cutStates.has("behind") && afterPartition?.status === "ok",
    `during: ${[...cutStates].join(", ")}; after: ${afterPartition?.status}`,
  );
  holds(
    "a deposit confirmed while its node was cut off is credited exactly once after it caught up",
    caughtUp.credited_usd === 40 && (await balanceOf(cutOff)) === 40,
    `credited ${caughtUp.credited_usd}, balance ${await balanceOf(cutOff)}`,
  );

  // 3. Credited, then a longer chain without its transaction: the credit stands and is flagged.
  const second = await customer(receiver, "deposit-reorg", 0);
  const reorgPay = await payAndSee(second, 50);
  const [payingBlock] = await mine(reorgPay.required);
  await waitFor(reorgPay.read, (t) => t.status === "completed", 120_000, "credit before the reorg");
  const flaggedBefore = (await litecoinWatcher())?.flagged_payments ?? 0;
  await fault(`a reorg ${reorgPay.required + 1} blocks deep on litecoind after the credit`, async () => {
    await ltc.rpc("invalidateblock", [payingBlock]);
    // Empty blocks: the payment stays out of the new best chain (it waits in the mempool).
    for (let i = 0; i <= reorgPay.required; i++) await ltc.rpc("generateblock", [ltc.miner, []]);
  });
  const flagged = await waitFor(
    litecoinWatcher,
    (w) => (w?.flagged_payments ?? 0) > flaggedBefore,
    60_000,
    "reorged payment flagged",
  );
  const afterReorg = await reorgPay.read();
  holds(
    "a credit reorged out stays credited once and is flagged for the operator",
    afterReorg.credited_usd === 50 &&
      (await balanceOf(second)) === 50 &&
      (flagged?.flagged_payments ?? 0) === flaggedBefore + 1,
    `credited ${afterReorg.credited_usd}, balance ${await balanceOf(second)}, confirmations ${afterReorg.payments[0]?.confirmations}, flagged ${flagged?.flagged_payments}`,
  );
  // The payment is mined again in the next block: still one credit.
  await mine(reorgPay.required);
  const again = await waitFor(
    reorgPay.read,
    (t) => (t.payments[0]?.confirmations ?? 0) >= reorgPay.required,
    120_000,
    "payment mined again",
  );
  holds(
    "a reorged payment mined again is not credited a second time",
    again.credited_usd === 50 && (await balanceOf(second)) === 50,
    `credited ${again.credited_usd}, balance ${await balanceOf(second)}`,
  );
  return [first, cutOff, second];
}

/**
 * An XMR deposit confirming while monerod is stopped mid-poll and started again: the service's wallet-rpc stays
 * up without its daemon, the watcher reports the node unreachable, and the payment is credited once after.
 */
async function moneroDepositThroughRestart(receiver: Receiver, monero: MoneroNodes) {
  const c = await customer(receiver, "deposit-xmr", 0);
  const created = (await api("POST", "/topups", c.key, { amount: 80, coin: "XMR" })).body;
  await monero.payer("refresh");
  const piconero = Math.round(Number(created.deposit_amount) * 1e12);
  await monero.payer("transfer", { destinations: [{ amount: piconero, address: created.deposit_address }] });
  const read = async () => (await api("GET", `/topups/${created.ref}`, c.key)).body as unknown as Topup;
  await waitFor(read, (t) => t.payments.length > 0, 60_000, "XMR payment seen");
  await monero.mine(1);
  const watcher = watcherNamed("xmr:monero");
  const sampled = sampleStatuses(watcher);
  await fault("monerod stopped mid-poll, then started again", () =>
    monero.restartDaemon(offset(4_000, 8_000)),
  );
  // A Monero payment is spendable (and credited) only 10 blocks deep, whatever the confirmations asked.
  await monero.mine(Math.max(10, created.confirmations_required as number));
  const credited = await waitFor(read, (t) => t.status === "completed", 120_000, "XMR credit after restart");
  const after = await waitFor(watcher, (w) => w?.status === "ok", 60_000, "XMR watcher ok");
  const states = await sampled.stop();
  holds(
    "/health said the Monero watcher could not reach its node while monerod was down, and ok after",
    states.has("unreachable") && after?.status === "ok",
    `during: ${[...states].join(", ")}; after: ${after?.status}`,
  );
  holds(
    "an XMR deposit confirming across a monerod restart is credited exactly once",
    credited.credited_usd === 80 && (await balanceOf(c)) === 80,
    `credited ${credited.credited_usd}, balance ${await balanceOf(c)}`,
  );
  return c;
}

/** An ETH deposit on anvil credited, then its block reorganised away (`anvil_reorg`) deeper than asked. */
async function ethDepositReorgedOut(receiver: Receiver, chain: LocalChain) {
  const c = await customer(receiver, "deposit-eth", 0);
  const payer = privateKeyToAccount(generatePrivateKey());
  await fundNativeBalance(chain.rpcUrl, payer.address, parseEther("10"));
  const wallet = createWalletClient({ account: payer, transport: http(chain.rpcUrl) });
  const reader = createPublicClient({ transport: http(chain.rpcUrl), pollingInterval: 200 });
  const created = (await api("POST", "/topups", c.key, { amount: 32, coin: "ETH" })).body;
  const hash = await wallet.sendTransaction({
    chain: null,
    to: created.deposit_address as `0x${string}`,
    value: parseEther(created.deposit_amount as string),
  });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  const read = async () => (await api("GET", `/topups/${created.ref}`, c.key)).body as unknown as Topup;
  await waitFor(read, (t) => t.status === "completed", 120_000, "ETH credit");
  const watcher = watcherNamed("evm:ethereum");
  const flaggedBefore = (await watcher())?.flagged_payments ?? 0;
  await fault("a reorg on anvil taking an ETH deposit's block after the credit", () =>
    reorgAway(chain.rpcUrl, receipt.blockNumber, receipt.blockHash),
  );
  const flagged = await waitFor(
    watcher,
    (w) => (w?.flagged_payments ?? 0) > flaggedBefore,
    60_000,
    "reorged ETH payment flagged",
  );
  const after = await read();
  holds(
    "an ETH credit reorged out on anvil stays credited once and is flagged for the operator",
    after.credited_usd === 32 &&
      (await balanceOf(c)) === 32 &&
      (flagged?.flagged_payments ?? 0) === flaggedBefore + 1,
    `credited ${after.credited_usd}, balance ${await balanceOf(c)}, confirmations ${after.payments[0]?.confirmations}, flagged ${flagged?.flagged_payments}`,
  );
  return c;
}

// ---------------------------------------------------------------- the checks

async function checkOrders(orders: Order[]) {
  const domains = await ourDomains();
  for (const placed of orders) {
    const server = (await api("GET", `/servers/${placed.id}`, placed.customer.key)).body as unknown as Server;
    const balance = await balanceOf(placed.customer);
    const running = domains.some((d) => d.name === `${PREFIX}${placed.id}` && d.running);
    const refunded = balance === placed.funded;
    const charged = Math.abs(balance - (placed.funded - placed.price)) < 0.005;
    const asServer = server.status === "active" && running && charged;
    const asRefund = server.status === "terminated" && !running && refunded;
    holds(
      `paid order ${placed.id} is a running server or refunded in full, not both`,
      asServer !== asRefund,
      `${server.status} ${server.status_reason ?? ""}; domain ${running ? "running" : "not running"}; balance ${balance} of ${placed.funded} (price ${placed.price.toFixed(2)})`,
    );
  }
}

async function checkHostViews(operator: OperatorSession) {
  type View = {
    name: string;
    libvirt: {
      status: string;
      stray_domains?: { name: string; why: string }[];
      missing_domains?: { server_id: number }[];
    };
  };
  // Terminations and retries finish in the background: the views get a minute to agree.
  let hosts: View[] = [];
  const problems = () =>
    hosts.flatMap((host) => [
      ...(host.libvirt.status === "ok" ? [] : [`${host.name}: ${host.libvirt.status}`]),
      ...(host.libvirt.stray_domains ?? [])
        .filter((d) => d.why !== "server on another host")
        .map((d) => `${host.name}: ${d.name} (${d.why})`),
      ...(host.libvirt.missing_domains ?? []).map((d) => `${host.name}: server ${d.server_id} has no domain`),
    ]);
  const deadline = Date.now() + 60_000;
  do {
    hosts = ((await operatorApi(base, operator, "/hosts?fresh=1")).body.hosts ?? []) as View[];
    if (problems().length === 0) break;
    await sleep(2_000);
  } while (Date.now() < deadline);
  holds(
    "the operator's host view agrees with libvirt: no domain without a live row, no live row without its domain",
    hosts.length === 2 && problems().length === 0,
    problems().join("; ") || `${hosts.length} hosts, all agree`,
  );
}

async function checkConsole(connection: ConsoleConnection | undefined) {
  if (!connection) {
    holds(
      "a console open across the faults closed with a reason or still works",
      false,
      "no console was opened",
    );
    return;
  }
  const closed = await Promise.race([connection.closed, sleep(100).then(() => undefined)]);
  if (closed) {
    holds(
      "a console open across the faults closed with a reason or still works",
      closed.reason.length > 0,
      `closed ${closed.code}: ${closed.reason}`,
    );
    return;
  }
  const from = connection.output().length;
  connection.type("\r");
  const answered = await connection.waitFor(/login: |# /, 30_000, from).then(
    () => true,
    () => false,
  );
  holds(
    "a console open across the faults closed with a reason or still works",
    answered,
    answered ? "still open, and the guest answers" : "open, but the guest never answered",
  );
  connection.ws.close();
}

// ---------------------------------------------------------------- the run

async function main() {
  if (process.getuid?.() !== 0) throw new Error("chaos:rails restarts libvirtd: run it as root");
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID")))
    throw new Error("No production build: run `npm run build` first.");
  if (!existsSync(path.join(IMAGES_DIR, "debian-12.qcow2"))) {
    throw new Error(`no tiny test guest in ${IMAGES_DIR}: run \`npm run guest:build-tiny\` first`);
  }
  t0 = Date.now();
  if (!(await virsh("version")).ok) {
    try {
      execFileSync("pgrep", ["-x", "virtlogd"]);
    } catch {
      execFileSync("virtlogd", ["-d"]);
    }
    execFileSync("libvirtd", ["-d"]);
    await libvirtdUp();
  }
  await cleanUp();
  await mountSmallPool();

  // The service's deposit keys made here, so its view-only Monero wallet is built from the same ones.
  const keys = generateDemoWatchOnlyKeys();
  const [sshd, ltc, ltcPeer, monero, ethereum, receiver] = await Promise.all([
    startLocalSshd(SSH_PORT_BASE - 1),
    startFundedLitecoind(),
    startLitecoind(undefined, { p2p: true }),
    startMonero({ address: moneroPrimaryAddress(keys), viewKey: keys.monero.viewKey }),
    startAnvil({ chainId: 1 }),
    startReceiver(),
  ]);
  cleanups.push(sshd.stop, ltc.stop, ltcPeer.stop, monero.stop, ethereum.stop, receiver.close);
  await peerUp(ltc, ltcPeer);
  gateway = await startNginx({ app: [APP_PORT], https: APP_PORT + 1, http: APP_PORT + 2 });
  gatewayAgent = nginxAgent(gateway);
  cleanups.push(gateway.stop);
  try {
    app = await startApp({
      ...watchOnlyKeyEnv(keys),
      XMR_WALLET_RPC_URL: monero.serviceWalletUrl,
      PORT: String(APP_PORT),
      // Customers reach it through nginx: the console's WebSocket address is made from this.
      PUBLIC_BASE_URL: gateway.origin,
      PROVISIONER: "libvirt",
      // A test machine only this run reaches: demo payments fund its real machines.
      ALLOW_DEMO_LIBVIRT: "1",
      HYPERVISORS: JSON.stringify([
        { name: "local-1", location: "nl", uri: URI, memory_mb: 3072, vcpus: 2, disk_gb: 24 },
        { name: "remote-1", location: "se", uri: sshd.uri, memory_mb: 1536, vcpus: 2, disk_gb: 16 },
      ]),
      GUEST_IMAGES_DIR: IMAGES_DIR,
      SERVER_DISKS_DIR: DISKS_DIR,
      LIBVIRT_DOMAIN_PREFIX: PREFIX,
      SERVER_MEMORY_CAP_MB: "1024",
      SERVER_DISK_CAP_GB: "4",
      SSH_FORWARD_PORT_BASE: String(SSH_PORT_BASE),
      SSH_FORWARD_PORT_COUNT: "100",
      SERVER_STOP_TIMEOUT_SECONDS: "30",
      SERVER_BOOT_TIMEOUT_SECONDS: "120",
      WATCHER_INTERVAL_MS: "500",
      LTC_RPC_URL: ltc.rpcUrl,
      LTC_RPC_COOKIE_FILE: ltc.cookieFile,
      LTC_CHAIN: "regtest",
      // Our litecoind has one peer: without it, it is cut off (a regtest node is not checked unless asked).
      WATCHER_MIN_PEERS: "1",
      EVM_RPC_URL: ethereum.rpcUrl,
      DEPOSIT_CONFIRMATIONS: "ETH:3",
      NOTIFY_TEST_ALLOW_LOOPBACK: "1",
    });
    cleanups.unshift(() => app.stop());
    base = app.url;
    log(`app at ${base}, customers through nginx at ${gateway.origin}, seed ${SEED}`);
    const operator = await signInOperator(
      base,
      await addOperator({ DATA_DIR: app.dataDir }, "rails", "support"),
    );

    // The rails run side by side: the hosts' faults and the coin node's do not touch each other.
    const [local, remote, depositors, xmrDepositor, ethDepositor] = await Promise.all([
      buildThroughLibvirtdCrash(receiver).then(async (crashed) => ({
        ...crashed,
        // After the libvirtd faults, not beside them: a full pool would fail their snapshot and restore too.
        fullPoolOrders: await storageFull(receiver, crashed.order),
      })),
      buildThroughHostOutage(receiver, sshd, operator),
      depositsThroughNodeFaults(receiver, ltc, ltcPeer),
      moneroDepositThroughRestart(receiver, monero),
      ethDepositReorgedOut(receiver, ethereum),
    ]);
    log("faults over: checking");
    await checkOrders([local.order, remote, ...local.fullPoolOrders]);
    await checkHostViews(operator);
    await checkConsole(local.console);

    const gatewayLines = readFileSync(gateway.accessLog, "utf8").split("\n");
    const apiLines = gatewayLines.filter((line) => line.includes(" /api/v1/")).length;
    const consoleLines = gatewayLines.filter((line) => line.includes("/console")).length;
    holds(
      "every customer call and the console went through nginx with the deploy kit's site",
      apiLines >= answers.length && consoleLines > 0,
      `${apiLines} API requests and ${consoleLines} console requests in nginx's access log, ${answers.length} answers`,
    );

    const fiveHundreds = answers.filter((answer) => answer.status >= 500);
    holds(
      "no 500 from the API",
      fiveHundreds.length === 0,
      fiveHundreds.map((a) => `${a.route} ${a.status}`).join("; ") || `${answers.length} answers, none 5xx`,
    );

    // What each customer's webhook received.
    const customers = [
      local.order.customer,
      remote.customer,
      ...new Set(local.fullPoolOrders.map((o) => o.customer)),
      ...depositors,
      xmrDepositor,
      ethDepositor,
    ];
    const events = customers.map((c) => ({
      path: c.path,
      types: receiver.received.filter((r) => r.path === c.path).map((r) => verified(r, c.webhookSecret).type),
    }));

    await app.stop();
    cleanups.shift();
    const database = await PGlite.create({ dataDir: path.join(app.dataDir, "pglite") });
    const ledger = await checkLedger(
      async (sql) => (await database.query<Record<string, unknown>>(sql)).rows,
    );
    await database.close();
    holds(
      "the ledger balances: every balance its entries, every credit once",
      ledger.problems.length === 0,
      ledger.problems.join("; ") || `${ledger.accounts} accounts, ${ledger.entries} entries`,
    );

    report(events);
  } finally {
    // nginx's error log goes with its folder when it stops: kept first, as evidence.
    if (gateway) {
      const gatewayLog = path.join(tmpdir(), "chaos-rails-nginx-error.log");
      writeFileSync(gatewayLog, existsSync(gateway.errorLog) ? readFileSync(gateway.errorLog) : "");
      console.log(`nginx's error log: ${gatewayLog}`);
    }
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    await cleanUp();
    // The app's own account of the run, for the evidence behind a broken invariant or a failed step.
    const appLog = path.join(tmpdir(), "chaos-rails-app.log");
    writeFileSync(appLog, app?.logs() ?? "");
    console.log(`\nthe app's output: ${appLog}`);
  }
  const broken = invariants.filter((invariant) => !invariant.held);
  if (broken.length > 0) {
    console.log(`\n${broken.length} invariant(s) broken`);
    process.exit(1);
  }
}

function report(events: { path: string; types: string[] }[]) {
  console.log(`\nfaults (seed ${SEED}):`);
  for (const f of faults) console.log(`  ${f.name}: ${((f.to - f.from) / 1000).toFixed(1)} s`);
  console.log("\nwhat the customers saw:");
  for (const s of seen) {
    console.log(`  ${s.label}: ${(s.waitedMs / 1000).toFixed(1)} s`);
    for (const state of s.states) console.log(`      ${state}`);
  }
  console.log("\nevents their webhooks received:");
  for (const e of events) console.log(`  ${e.path}: ${e.types.join(", ") || "none"}`);
  const byStatus = new Map<number, number>();
  for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
  const refused = answers.filter((a) => a.status >= 400).map((a) => `${a.route} ${a.status}`);
  console.log(`\nAPI answers 4xx: ${refused.join("; ") || "none"}`);
  console.log(
    `API answers by status: ${[...byStatus]
      .sort()
      .map(([s, n]) => `${s}=${n}`)
      .join(" ")}`,
  );
  console.log(`\n${"invariant".padEnd(100)} held`);
  for (const i of invariants) {
    console.log(`${i.name.padEnd(100)} ${i.held ? "yes" : "NO"}`);
    console.log(`    ${i.evidence}`);
  }
}

// Bounded: past its time the run fails and cleans up, whatever it was waiting for.
const DEADLINE_SECONDS = Number(process.env.CHAOS_RAILS_DEADLINE_SECONDS ?? 900);
/** A run that cannot finish stops everything it started and fails. */
async function abandon(why: unknown): Promise<never> {
  console.error(why);
  for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  await cleanUp().catch(() => undefined);
  process.exit(1);
}

setTimeout(
  () => abandon(`chaos:rails: still running after ${DEADLINE_SECONDS} s; stopping`),
  DEADLINE_SECONDS * 1000,
).unref();

main().catch(abandon);
