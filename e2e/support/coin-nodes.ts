/**
 * Real coin nodes for the node suite, in regtest on loopback with throw-away data directories:
 * Litecoin Core (`/usr/lib/litecoin/litecoind`, Debian's `litecoind` package), bcoin (npm) and Monero (`monerod`,
 * `monero-wallet-rpc`, Debian's `monero` package). The nodes are started
 * directly (not through /usr/bin wrappers that write into the home directory) and stopped after.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freeLoopbackPort } from "../../lib/util/free-port";

export const LITECOIND = "/usr/lib/litecoin/litecoind";

export type CoreNode = {
  /** The node's RPC, with credentials in the URL when it has no cookie file (bcoin's API key). */
  rpcUrl: string;
  cookieFile?: string;
  /** bcoin serves its one wallet on a port of its own; Core-style nodes at `<rpcUrl>wallet/<name>`. */
  walletRpcUrl?: string;
  /** Calls the node; `wallet` addresses one of its wallets. */
  rpc: <T = unknown>(method: string, params?: unknown[], wallet?: string) => Promise<T>;
  stop: () => Promise<void>;
};

/** What a test process needs to reach a node (serializable, unlike CoreNode). */
export type CoreNodeAddress = Pick<CoreNode, "rpcUrl" | "cookieFile" | "walletRpcUrl">;

async function coreCall<T>(
  url: string,
  cookieFile: string | undefined,
  method: string,
  params: unknown[],
): Promise<T> {
  const target = new URL(url);
  const credentials = cookieFile
    ? readFileSync(cookieFile, "utf8").trim()
    : `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
  target.username = "";
  target.password = "";
  const request = () =>
    fetch(target, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Basic ${Buffer.from(credentials).toString("base64")}`,
      },
      body: JSON.stringify({ jsonrpc: "1.0", id: 1, method, params }),
    });
  // litecoind closes idle keep-alive connections: a request caught on one is sent again.
  const response = await request().catch((error: Error & { cause?: { code?: string } }) => {
    if (["UND_ERR_SOCKET", "EPIPE", "ECONNRESET"].includes(error.cause?.code ?? "")) return request();
    throw error;
  });
  const body = (await response.json()) as { result: T; error: { message: string } | null };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** A JSON-RPC caller for a node started by this module, from a test process. */
export function coreRpc(node: CoreNodeAddress) {
  return <T = unknown>(method: string, params: unknown[] = [], wallet?: string) => {
    const url = wallet ? (node.walletRpcUrl ?? `${node.rpcUrl}wallet/${wallet}`) : node.rpcUrl;
    return coreCall<T>(url, node.cookieFile, method, params);
  };
}

export async function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  // A child killed by a signal (a test may SIGKILL one) has no exit code but a signal code; its exit event has
  // already fired, so waiting for it would hang the suite's teardown.
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/**
 * litecoind started by `startLitecoind`: `restart` stops it and starts it again on its chain and port;
 * `peerAddress` is where other nodes reach it when it was started with `p2p`.
 */
export type Litecoind = CoreNode & {
  cookieFile: string;
  restart: (downMs?: number) => Promise<void>;
  peerAddress?: string;
};

/**
 * Starts litecoind in regtest with cookie authentication; resolves once its RPC answers. `blocknotify`: the
 * command it runs for each new block (`-blocknotify`), as an operator would set it. `p2p`: it also takes
 * peers on a loopback port of its own (otherwise it only reaches out, when told to).
 */
export async function startLitecoind(
  blocknotify?: string,
  options: { p2p?: boolean } = {},
): Promise<Litecoind> {
  if (!existsSync(LITECOIND)) throw new Error(`${LITECOIND} not found: apt-get install litecoind`);
  const dataDir = mkdtempSync(path.join(tmpdir(), "vps-ltc-"));
  const port = await freeLoopbackPort();
  const peerPort = options.p2p ? await freeLoopbackPort() : undefined;
  const rpcUrl = `http://127.0.0.1:${port}/`;
  const cookieFile = path.join(dataDir, "regtest", ".cookie");
  const rpc = coreRpc({ rpcUrl, cookieFile });
  let child: ChildProcess;
  let output = "";
  const launch = async () => {
    output = "";
    child = spawn(
      LITECOIND,
      [
        "-regtest",
        `-datadir=${dataDir}`,
        "-server",
        ...(peerPort ? ["-listen=1", `-bind=127.0.0.1:${peerPort}`, "-discover=0"] : ["-listen=0"]),
        "-rpcbind=127.0.0.1",
        "-rpcallowip=127.0.0.1",
        `-rpcport=${port}`,
        "-fallbackfee=0.0001",
        "-printtoconsole=0",
        "-txindex=0",
        ...(blocknotify ? [`-blocknotify=${blocknotify}`] : []),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`litecoind exited (${child.exitCode}): ${output}`);
      try {
        await rpc("getblockcount");
        return;
      } catch {
        if (Date.now() > deadline) {
          await stopChild(child);
          throw new Error(`litecoind did not answer within 30 s: ${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const stop = async () => {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const restart = async (downMs = 0) => {
    const wallets = await rpc<string[]>("listwallets");
    await stopChild(child, 60_000);
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await launch();
    // Wallets created over RPC are not loaded at start unless asked.
    for (const wallet of wallets) await rpc("loadwallet", [wallet]).catch(() => undefined);
  };
  return {
    rpcUrl,
    cookieFile,
    rpc,
    stop,
    restart,
    ...(peerPort ? { peerAddress: `127.0.0.1:${peerPort}` } : {}),
  };
}

/**
 * Starts bcoin (npm `bcoin`, a full node in JavaScript) in regtest with Bitcoin Core's address formats,
 * its chain in memory, RPC on loopback behind an API key; resolves once its RPC answers. Its wallet
 * (`rpc(method, params, "payer")`) mines and pays.
 */
export async function startBcoin(): Promise<CoreNode> {
  const [port, walletPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
  const apiKey = randomBytes(16).toString("hex");
  let output = "";
  const child = spawn(
    process.execPath,
    [path.join(import.meta.dirname, "bcoin-regtest.mjs"), String(port), String(walletPort), apiKey],
    // bcoin's crypto and hashing packages in JavaScript: their native builds are install scripts npm does not
    // run (package.json allowScripts), and without NODE_BACKEND=js mrmr refuses to load at all.
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_BACKEND: "js" } },
  );
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const node: CoreNodeAddress = {
    rpcUrl: `http://bitcoinrpc:${apiKey}@127.0.0.1:${port}/`,
    walletRpcUrl: `http://bitcoinrpc:${apiKey}@127.0.0.1:${walletPort}/`,
  };
  const rpc = coreRpc(node);
  const stop = () => stopChild(child);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bcoin exited (${child.exitCode}): ${output}`);
    try {
      await rpc("getblockcount");
      await rpc("getbalance", [], "payer");
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`bcoin did not answer within 30 s: ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { ...node, rpc, stop };
}

/**
 * litecoind whose wallet "payer" holds mature coins: 150 blocks mined to `miner` (regtest halves the subsidy
 * every 150 blocks, which leaves 50 mature coinbases of 50 LTC).
 */
export async function startFundedLitecoind(blocknotify?: string): Promise<Litecoind & { miner: string }> {
  const node = await startLitecoind(blocknotify);
  try {
    await node.rpc("createwallet", ["payer"]);
    const miner = await node.rpc<string>("getnewaddress", ["", "bech32"], "payer");
    await node.rpc("generatetoaddress", [150, miner], "payer");
    return { ...node, miner };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

/** bcoin whose wallet holds 20 mature coinbases: 120 blocks mined to `miner`, once the wallet has seen them. */
export async function startFundedBcoin(): Promise<CoreNode & { miner: string }> {
  const node = await startBcoin();
  try {
    const miner = await node.rpc<string>("getnewaddress", [""], "payer");
    await node.rpc("generatetoaddress", [120, miner]);
    // bcoin's wallet follows the chain asynchronously.
    for (let i = 0; (await node.rpc<number>("getbalance", [], "payer")) < 100; i++) {
      if (i > 100) throw new Error("bcoin's wallet did not see its mined coins");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { ...node, miner };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

export type MoneroNodes = {
  daemonUrl: string;
  /** monerod's ZMQ publisher (`--zmq-pub`), on loopback: what XMR_ZMQ_URL names. */
  zmqUrl: string;
  payerUrl: string;
  payerAddress: string;
  /** The payer's wallet RPC (a normal wallet that mines and sends). */
  payer: (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** The service's view-only wallet RPC, as the app uses it. */
  serviceWalletUrl: string;
  /** Its process and the arguments it was started with, so a test can kill it and start it again. */
  serviceWallet: { pid: number; args: string[] };
  service: (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** Mines `blocks` blocks to the payer's address. */
  mine: (blocks: number) => Promise<void>;
  /** Stops monerod, waits `downMs`, and starts it again on its chain and ports (the wallets stay up). */
  restartDaemon: (downMs?: number) => Promise<void>;
  stop: () => Promise<void>;
};

/** Calls a monerod or monero-wallet-rpc JSON-RPC method at `url` (without `/json_rpc`). */
export async function moneroCall(url: string, method: string, params: Record<string, unknown> = {}) {
  const response = await fetch(`${url}/json_rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }),
  });
  const body = (await response.json()) as { result: Record<string, unknown>; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function waitForRpc(
  url: string,
  method: string,
  child: ChildProcess,
  name: string,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode})`);
    try {
      await moneroCall(url, method);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not answer within ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Starts monerod in regtest (offline, fixed difficulty 1) and two monero-wallet-rpc: the payer's wallet,
 * funded by mining 110 blocks, and the service's view-only wallet made
 * from `keys` (primary address and private view key, no spend key).
 *
 * With `keep`, the chain and both wallets live in that folder and are kept when stopped (wallets stored
 * first): a later start with the same folder and keys opens them again instead of making new ones, so a
 * benchmark need not make 100,000 subaddresses on every run. Otherwise a temporary folder is removed.
 */
export async function startMonero(
  keys: { address: string; viewKey: string },
  keep?: string,
): Promise<MoneroNodes> {
  const reuse = keep !== undefined && existsSync(path.join(keep, "service"));
  if (keep !== undefined) mkdirSync(keep, { recursive: true });
  const dir = keep ?? mkdtempSync(path.join(tmpdir(), "vps-xmr-"));
  const [rpcPort, p2pPort, zmqRpcPort, zmqPubPort] = [
    await freeLoopbackPort(),
    await freeLoopbackPort(),
    await freeLoopbackPort(),
    await freeLoopbackPort(),
  ];
  const zmqUrl = `tcp://127.0.0.1:${zmqPubPort}`;
  const children: ChildProcess[] = [];
  let storeWallets = async () => {};
  const stop = async () => {
    if (keep !== undefined) await storeWallets().catch(() => undefined);
    for (const child of children.reverse()) await stopChild(child, 20_000);
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  };
  const quiet = { stdio: ["ignore", "ignore", "ignore"] as ("ignore" | "pipe")[] };
  const daemonUrl = `http://127.0.0.1:${rpcPort}`;
  let daemon: ChildProcess | undefined;
  const launchDaemon = async () => {
    daemon = spawn(
      "/usr/bin/monerod",
      [
        "--regtest",
        // Regtest's chain is deleted at each start unless kept: a restarted monerod goes on with its chain.
        "--keep-fakechain",
        "--offline",
        "--fixed-difficulty=1",
        `--data-dir=${path.join(dir, "daemon")}`,
        `--log-file=${path.join(dir, "monerod.log")}`,
        "--rpc-bind-ip=127.0.0.1",
        `--rpc-bind-port=${rpcPort}`,
        "--p2p-bind-ip=127.0.0.1",
        `--p2p-bind-port=${p2pPort}`,
        // The publisher needs monerod's ZMQ RPC server on; both on loopback.
        "--zmq-rpc-bind-ip=127.0.0.1",
        `--zmq-rpc-bind-port=${zmqRpcPort}`,
        `--zmq-pub=${zmqUrl}`,
        "--no-igd",
        "--non-interactive",
        "--disable-dns-checkpoints",
        "--max-concurrency=1",
      ],
      quiet,
    );
    // First in the list: stopped last, after the wallets that read it.
    children.unshift(daemon);
    await waitForRpc(daemonUrl, "get_info", daemon, "monerod", 90_000);
  };
  const restartDaemon = async (downMs = 0) => {
    const stopping = daemon;
    if (stopping) {
      children.splice(children.indexOf(stopping), 1);
      await stopChild(stopping, 60_000);
    }
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await launchDaemon();
  };
  try {
    await launchDaemon();
    const walletArgs = (port: number, name: string) => [
      `--daemon-address=127.0.0.1:${rpcPort}`,
      "--trusted-daemon",
      `--wallet-dir=${dir}`,
      `--rpc-bind-port=${port}`,
      "--disable-rpc-login",
      "--non-interactive",
      `--log-file=${path.join(dir, `${name}.log`)}`,
      "--max-concurrency=1",
    ];
    const wallet = (port: number, name: string) => {
      const child = spawnWalletRpc(walletArgs(port, name));
      children.push(child);
      return child;
    };
    // Drawn once monerod answers, just before the wallets bind them: a port drawn long before is a port
    // another process may draw too meanwhile.
    const [payerPort, servicePort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const payerUrl = `http://127.0.0.1:${payerPort}`;
    const serviceWalletUrl = `http://127.0.0.1:${servicePort}`;
    const payerChild = wallet(payerPort, "payer");
    const serviceChild = wallet(servicePort, "service");
    await waitForRpc(payerUrl, "get_version", payerChild, "payer wallet-rpc");
    await waitForRpc(serviceWalletUrl, "get_version", serviceChild, "service wallet-rpc");
    const payer = (method: string, params?: Record<string, unknown>) => moneroCall(payerUrl, method, params);
    const service = (method: string, params?: Record<string, unknown>) =>
      moneroCall(serviceWalletUrl, method, params);
    if (reuse) await payer("open_wallet", { filename: "payer", password: "" });
    else await payer("create_wallet", { filename: "payer", language: "English" });
    const { address: payerAddress } = (await payer("get_address", { account_index: 0 })) as {
      address: string;
    };
    const mine = async (blocks: number) => {
      await moneroCall(daemonUrl, "generateblocks", {
        amount_of_blocks: blocks,
        wallet_address: payerAddress,
      });
      // Just after monerod restarted, the wallet has not found it again yet: it does within seconds.
      for (let tries = 0; ; tries++) {
        try {
          await payer("refresh");
          return;
        } catch (error) {
          if (tries >= 60 || !String(error).includes("no connection to daemon")) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    };
    if (reuse) {
      await service("open_wallet", { filename: "service", password: "" });
      const { address } = (await service("get_address", { account_index: 0 })) as { address: string };
      if (address !== keys.address) throw new Error(`the wallet kept in ${dir} is not made from these keys`);
    } else {
      // Coinbase outputs unlock after 60 blocks, and a transfer needs enough older outputs for its ring.
      await mine(110);
      await service("generate_from_keys", {
        filename: "service",
        address: keys.address,
        viewkey: keys.viewKey,
        password: "",
        restore_height: 0,
      });
    }
    storeWallets = async () => {
      await payer("store");
      await service("store");
    };
    const serviceWallet = { pid: serviceChild.pid ?? 0, args: walletArgs(servicePort, "service") };
    return {
      daemonUrl,
      zmqUrl,
      payerUrl,
      payerAddress,
      payer,
      serviceWalletUrl,
      serviceWallet,
      service,
      mine,
      restartDaemon,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts monero-wallet-rpc with these arguments (quiet); the caller waits for its RPC and stops it. */
export function spawnWalletRpc(args: string[]): ChildProcess {
  return spawn("/usr/bin/monero-wallet-rpc", args, { stdio: ["ignore", "ignore", "ignore"] });
}

/** Resolves once the monero-wallet-rpc at `url` answers, or throws after `timeoutMs`. */
export async function waitForWalletRpc(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  await waitForRpc(url, "get_version", child, "wallet-rpc", timeoutMs);
}

/**
 * Another view-only wallet on the monerod at `daemonUrl`, made from `keys` and starting at the chain's height
 * now (nothing to sync): a second service with keys of its own. Stopped (and its folder removed) by `stop`.
 */
export async function startViewOnlyWallet(
  daemonUrl: string,
  keys: { address: string; viewKey: string },
): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), "vps-xmr-wallet-"));
  const port = await freeLoopbackPort();
  const child = spawnWalletRpc([
    `--daemon-address=${new URL(daemonUrl).host}`,
    "--trusted-daemon",
    `--wallet-dir=${dir}`,
    `--rpc-bind-port=${port}`,
    "--disable-rpc-login",
    "--non-interactive",
    `--log-file=${path.join(dir, "wallet.log")}`,
    "--max-concurrency=1",
  ]);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child, 20_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForWalletRpc(url, child);
    const { height } = (await moneroCall(daemonUrl, "get_info")) as { height: number };
    await moneroCall(url, "generate_from_keys", {
      filename: "service",
      address: keys.address,
      viewkey: keys.viewKey,
      password: "",
      restore_height: height - 1,
    });
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
