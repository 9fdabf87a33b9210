/**
 * Snapshot benchmark on the tiny test guest (root, libvirtd running, `npm run build` and
 * `npm run guest:build-tiny` done; it boots VMs: run it under `flock /work/vm.lock`): orders one server
 * through the API with the libvirt provisioner, writes 1 GiB of data to its disk (past the guest's small root
 * filesystem, straight to /dev/vda), then measures
 *
 * - a snapshot of the running machine: request -> `available`, and the space it takes on the host;
 * - the guest's longest stall while that snapshot is taken, seen from outside: the guest writes a line to its
 *   serial console every 20 ms and this script watches the console log grow (a paused or starved guest stops
 *   writing), against the longest stall in as long a stretch after it;
 * - a restore: request -> `active` again and -> the first SSH login;
 * - a snapshot of the stopped machine (copied at rest).
 *
 * BENCH_SNAPSHOT_ROUNDS (default 5) running snapshots are taken and restored.
 *
 * With BENCH_SNAPSHOT_DEBIAN=1 (and `npm run guest:build`), a round on the Debian image follows, whose guest
 * agent answers, so its snapshots are `frozen`: BENCH_SNAPSHOT_DEBIAN_ROUNDS (default 3) snapshots of the
 * running machine while the guest appends a timestamp to a file on its root filesystem and then a line to its
 * serial console every 20 ms. A write to a frozen filesystem waits until the thaw, so the longest gap between
 * the guest's own timestamps is its stall from the freeze (domfsfreeze -> end of the mirror -> domfsthaw),
 * and the console log's longest stall shows the same from outside. Then domfsfreeze and domfsthaw on their
 * own (virsh, as the snapshot job runs them): how long each takes, and the guest's stall between them.
 *
 * Everything it creates (domains `vpss-<id>` and `vpsd-<id>`, volumes) is removed at the end.
 *
 *   flock /work/vm.lock npm run bench:snapshots
 *   BENCH_SNAPSHOT_DEBIAN=1 flock /work/vm.lock npm run bench:snapshots
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { startApp } from "../e2e/support/app-server";
import { sshRun, sshWhenUp } from "../e2e/vm/host";
import { removeMachines, virsh } from "./bench-host";
import { percentile } from "./percentile";

const ROUNDS = Number(process.env.BENCH_SNAPSHOT_ROUNDS ?? 5);
const DEBIAN = process.env.BENCH_SNAPSHOT_DEBIAN === "1";
const DEBIAN_ROUNDS = Number(process.env.BENCH_SNAPSHOT_DEBIAN_ROUNDS ?? 3);
const PREFIX = "vpss-";
const DEBIAN_PREFIX = "vpsd-";
const POOL = `${PREFIX}disks`;
const TINY_IMAGES = process.env.TINY_GUEST_DIR ?? "/var/lib/vps/test-images";
const DEBIAN_IMAGES = process.env.GUEST_IMAGES_DIR ?? "/var/lib/vps/images";
// Forwarded SSH ports of its own, derived from the vm suite's base so parallel runs cannot collide.
const SSH_PORT_BASE = Number(process.env.VM_TEST_SSH_PORT_BASE ?? 23600) + 250;
const WRITTEN_MIB = 1024;
const HEARTBEAT_MS = 20;

const cleanUp = () => {
  removeMachines(PREFIX);
  removeMachines(DEBIAN_PREFIX);
};
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Watches a file grow, polling its size every 2 ms; `stop` returns the longest time it did not grow. Each
 * poll is a stat of a local file, far below the heartbeat's 20 ms.
 */
function watchGrowth(file: string) {
  let last = statSync(file).size;
  let lastGrowth = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const size = statSync(file).size;
    const at = performance.now();
    if (size !== last) {
      longest = Math.max(longest, at - lastGrowth);
      last = size;
      lastGrowth = at;
    }
  }, 2);
  return () => {
    clearInterval(timer);
    return Math.max(longest, performance.now() - lastGrowth);
  };
}

type Round = {
  snapshotS: number;
  sizeBytes: number;
  stallMs: number;
  baselineMs: number;
  restoreS: number;
  loginS: number;
};

/**
 * The app on the libvirt provisioner with one host, this machine, for one benchmark server of `memoryMb`,
 * with a funded account; `call` and `until` speak to its API with that account's key.
 */
async function openBench(options: {
  prefix: string;
  images: string;
  disksDir: string;
  memoryMb: number;
  portBase: number;
}) {
  const app = await startApp({
    PROVISIONER: "libvirt",
    // A test machine only this run reaches: demo payments fund its real machines.
    ALLOW_DEMO_LIBVIRT: "1",
    HYPERVISORS: JSON.stringify([
      { name: "bench-1", location: "nl", uri: "qemu:///system", memory_mb: 1024, vcpus: 2, disk_gb: 40 },
    ]),
    GUEST_IMAGES_DIR: options.images,
    SERVER_DISKS_DIR: options.disksDir,
    LIBVIRT_DOMAIN_PREFIX: options.prefix,
    SERVER_MEMORY_CAP_MB: String(options.memoryMb),
    SERVER_DISK_CAP_GB: "4",
    SSH_FORWARD_PORT_BASE: String(options.portBase),
    SSH_FORWARD_PORT_COUNT: "50",
    WATCHER_INTERVAL_MS: "500",
    SERVER_BOOT_TIMEOUT_SECONDS: "600",
    SNAPSHOTS_PER_SERVER: "10",
  });
  const base = `${app.url}/api/v1`;
  let key = "";
  const call = async (path: string, method = "GET", body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  const until = async (path: string, done: (value: Record<string, unknown>) => boolean) => {
    for (;;) {
      const value = await call(path);
      if (done(value)) return value;
      await sleep(200);
    }
  };
  try {
    const account = (await (await fetch(`${base}/account`, { method: "POST" })).json()) as {
      api_key: string;
    };
    key = account.api_key;
    const topup = await call("/topups", "POST", { amount: 100, coin: "USDTTRC" });
    await call(`/demo/topups/${topup.ref}/pay`, "POST", {});
    await until(`/topups/${topup.ref}`, (t) => t.status === "completed");
  } catch (error) {
    await app.stop();
    throw error;
  }
  /** Orders the benchmark's one server and waits for its first SSH login (within `bootMs`). */
  const orderServer = async (bootMs: number) => {
    const created = await call("/servers", "POST", { plan: "pup", location: "nl", os: "debian-12" });
    if (typeof created.id !== "number") throw new Error(`order refused: ${JSON.stringify(created)}`);
    const id = created.id;
    const server = await until(`/servers/${id}`, (s) => s.status !== "provisioning");
    if (server.status !== "active") throw new Error(`build failed: ${server.status_reason}`);
    const port = server.ssh_port as number;
    const pinned = server.ssh_host_key_fingerprint as string;
    const login = { password: created.root_password as string };
    const run = (command: string, timeoutMs = 900_000) => sshRun(port, pinned, login, command, timeoutMs);
    await sshWhenUp(port, pinned, login, "true", bootMs);
    const domain = `${options.prefix}${id}`;
    const consoleLog = `/var/log/libvirt/qemu/${domain}-console.log`;
    if (!existsSync(consoleLog)) throw new Error(`no console log at ${consoleLog}`);
    return { id, server, port, pinned, login, run, domain, consoleLog };
  };
  return { app, call, until, orderServer };
}

/** The longest gap between consecutive nanosecond timestamps, one a line, in ms. */
function longestGapMs(lines: string): number {
  const stamps = lines
    .split("\n")
    .map((line) => Number(line.trim()))
    .filter((value) => Number.isFinite(value) && value > 0);
  let longest = 0;
  for (let i = 1; i < stamps.length; i++) {
    longest = Math.max(longest, ((stamps[i] as number) - (stamps[i - 1] as number)) / 1e6);
  }
  return longest;
}

/**
 * The Debian image, whose guest agent answers: snapshots that freeze its filesystems, and what the freeze
 * costs the guest (see the header).
 */
async function debianRounds() {
  if (!existsSync(`${DEBIAN_IMAGES}/debian-12.qcow2`)) {
    throw new Error(`no Debian image in ${DEBIAN_IMAGES}: run \`npm run guest:build\` first`);
  }
  const { app, call, until, orderServer } = await openBench({
    prefix: DEBIAN_PREFIX,
    images: DEBIAN_IMAGES,
    disksDir: "/var/lib/vps/bench-snapshots-debian",
    memoryMb: 1024,
    // Ports of its own, apart from every other VM benchmark's.
    portBase: SSH_PORT_BASE + 850,
  });
  try {
    const started = Date.now();
    const { id, run, domain, consoleLog } = await orderServer(600_000);
    // The agent starts with the guest's services: wait until it answers, or every snapshot is crash-consistent.
    for (let tries = 0; !virsh("qemu-agent-command", domain, '{"execute":"guest-ping"}'); tries++) {
      if (tries > 120) throw new Error("the Debian guest's agent never answered");
      await sleep(1_000);
    }
    console.log(`\nDebian 12 up with its guest agent in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const beat = "/var/tmp/heartbeat";
    /** Appends a timestamp to a file on the root filesystem, then a line to the console, every 20 ms. */
    const startHeartbeat = () =>
      run(
        `rm -f ${beat}; (while :; do date +%s%N >>${beat}; echo hb >/dev/ttyS0; sleep 0.02; done) ` +
          ">/dev/null 2>&1 </dev/null & echo $!",
      );
    /** Stops it and returns the longest gap between its timestamps. */
    const stopHeartbeat = async (pid: string) => longestGapMs(await run(`kill ${pid}; cat ${beat}`));

    type FrozenRound = { snapshotS: number; consistency: string; writesMs: number; consoleMs: number };
    const rounds: FrozenRound[] = [];
    for (let round = 1; round <= DEBIAN_ROUNDS; round++) {
      const pid = await startHeartbeat();
      await sleep(1_000);
      const consoleStop = watchGrowth(consoleLog);
      const begin = Date.now();
      const taken = await call(`/servers/${id}/snapshots`, "POST", { name: `frozen ${round}` });
      if (typeof taken.id !== "number") throw new Error(`snapshot refused: ${JSON.stringify(taken)}`);
      const snapshot = await until(`/servers/${id}/snapshots/${taken.id}`, (s) => s.state !== "creating");
      const consoleMs = consoleStop();
      const snapshotS = (Date.now() - begin) / 1000;
      const writesMs = await stopHeartbeat(pid);
      if (snapshot.state !== "available") throw new Error(`snapshot failed: ${snapshot.failure_reason}`);
      rounds.push({ snapshotS, consistency: snapshot.consistency as string, writesMs, consoleMs });
      console.log(
        `Debian round ${round}: snapshot (running, ${snapshot.consistency}) ${snapshotS.toFixed(1)} s; the guest's ` +
          `writes stalled at most ${writesMs.toFixed(0)} ms, its console ${consoleMs.toFixed(0)} ms`,
      );
      await call(`/servers/${id}/snapshots/${taken.id}`, "DELETE");
      await until(`/servers/${id}/snapshots`, (list) => (list.snapshots as unknown[]).length === 0);
    }
    // As long a stretch with no snapshot: how long the guest's writes stall here anyway.
    const basePid = await startHeartbeat();
    await sleep(1_000);
    const baseConsoleStop = watchGrowth(consoleLog);
    await sleep(
      percentile(
        rounds.map((r) => r.snapshotS),
        50,
      ) * 1000,
    );
    const baseConsoleMs = baseConsoleStop();
    const baseWritesMs = await stopHeartbeat(basePid);

    // The freeze on its own, as the snapshot job runs it: domfsfreeze, then domfsthaw at once.
    const freezePid = await startHeartbeat();
    await sleep(1_000);
    const timed = (...args: string[]) => {
      const t0 = performance.now();
      execFileSync("virsh", ["-c", "qemu:///system", ...args], { stdio: ["ignore", "pipe", "pipe"] });
      return performance.now() - t0;
    };
    let freezeMs = 0;
    let thawMs = 0;
    try {
      freezeMs = timed("domfsfreeze", domain);
    } finally {
      thawMs = timed("domfsthaw", domain);
    }
    await sleep(500);
    const freezeWritesMs = await stopHeartbeat(freezePid);

    const p50 = (values: number[]) => percentile(values, 50);
    console.log(
      `\nTCG, Debian 12 (1 GiB, 1 vCPU, 4 GiB disk, qemu-guest-agent), ${DEBIAN_ROUNDS} rounds, load ${loadAverage()}`,
    );
    console.log(
      `snapshot running p50 ${p50(rounds.map((r) => r.snapshotS)).toFixed(1)} s (${rounds.map((r) => r.consistency).join(", ")}); ` +
        `guest's writes stalled max ${Math.max(...rounds.map((r) => r.writesMs)).toFixed(0)} ms ` +
        `(p50 ${p50(rounds.map((r) => r.writesMs)).toFixed(0)} ms), console max ${Math.max(...rounds.map((r) => r.consoleMs)).toFixed(0)} ms; ` +
        `without a snapshot: writes ${baseWritesMs.toFixed(0)} ms, console ${baseConsoleMs.toFixed(0)} ms`,
    );
    console.log(
      `domfsfreeze alone ${freezeMs.toFixed(0)} ms, domfsthaw ${thawMs.toFixed(0)} ms; the guest's writes ` +
        `stalled ${freezeWritesMs.toFixed(0)} ms across them`,
    );
    await call(`/servers/${id}`, "DELETE");
    while (virsh("domstate", domain)) await sleep(500);
  } finally {
    await app.stop();
  }
}

async function main() {
  cleanUp();
  const { app, call, until, orderServer } = await openBench({
    prefix: PREFIX,
    images: TINY_IMAGES,
    disksDir: "/var/lib/vps/bench-snapshots",
    memoryMb: 512,
    portBase: SSH_PORT_BASE,
  });
  const rounds: Round[] = [];
  try {
    const { id, server, port, pinned, login, run, domain, consoleLog } = await orderServer(300_000);

    // 1 GiB of incompressible data on the disk, after its 64 MiB root filesystem: a 1 MiB random block
    // written over and over (qcow2 stores each copy; nothing deduplicates them).
    const writeStarted = Date.now();
    await run(
      `dd if=/dev/urandom of=/tmp/block bs=1M count=1 2>/dev/null && ` +
        `for i in $(seq ${WRITTEN_MIB}); do cat /tmp/block; done | dd of=/dev/vda bs=1M seek=128 conv=fsync 2>/dev/null && echo ok`,
    );
    console.log(
      `wrote ${WRITTEN_MIB} MiB to the disk in ${((Date.now() - writeStarted) / 1000).toFixed(1)} s`,
    );
    const diskPath = virsh("vol-path", "--pool", POOL, `${domain}.qcow2`);
    const diskBytes = diskPath ? statSync(diskPath).blocks * 512 : 0;

    for (let round = 1; round <= ROUNDS; round++) {
      // The heartbeat: a line on the serial console every 20 ms, from a loop left running in the guest.
      const heartbeat = await run(
        `(while :; do echo hb; usleep ${HEARTBEAT_MS * 1000}; done) >/dev/ttyS0 2>&1 </dev/null & echo $!`,
      );
      await sleep(1_000);
      const stallStop = watchGrowth(consoleLog);
      const started = Date.now();
      const taken = await call(`/servers/${id}/snapshots`, "POST", { name: `bench ${round}` });
      if (typeof taken.id !== "number") throw new Error(`snapshot refused: ${JSON.stringify(taken)}`);
      const snapshot = await until(`/servers/${id}/snapshots/${taken.id}`, (s) => s.state !== "creating");
      const stallMs = stallStop();
      const snapshotS = (Date.now() - started) / 1000;
      if (snapshot.state !== "available") throw new Error(`snapshot failed: ${snapshot.failure_reason}`);
      // As long a stretch right after the copy, for comparison: how long this guest stalls here anyway.
      const baselineStop = watchGrowth(consoleLog);
      await sleep(snapshotS * 1000);
      const baselineMs = baselineStop();
      await run(`kill ${heartbeat}`);

      const restoreStarted = Date.now();
      await call(`/servers/${id}/snapshots/${taken.id}/restore`, "POST", { confirm: server.hostname });
      const restored = await until(`/servers/${id}`, (s) => s.status !== "provisioning");
      if (restored.status !== "active") throw new Error(`restore failed: ${restored.status_reason}`);
      const restoreS = (Date.now() - restoreStarted) / 1000;
      await sshWhenUp(port, pinned, login, "true", 300_000);
      const loginS = (Date.now() - restoreStarted) / 1000;
      const round_: Round = {
        snapshotS,
        sizeBytes: snapshot.size_bytes as number,
        stallMs,
        baselineMs,
        restoreS,
        loginS,
      };
      rounds.push(round_);
      console.log(
        `round ${round}: snapshot (running, ${snapshot.consistency}) ${snapshotS.toFixed(1)} s, ` +
          `${(round_.sizeBytes / 2 ** 20).toFixed(0)} MiB on the host; longest guest stall ${stallMs.toFixed(0)} ms ` +
          `(${baselineMs.toFixed(0)} ms without a copy running); restore -> active ${restoreS.toFixed(1)} s, ` +
          `-> SSH ${loginS.toFixed(1)} s`,
      );
    }

    // A snapshot of the stopped machine: a copy at rest.
    await call(`/servers/${id}/actions`, "POST", { action: "stop" });
    await until(`/servers/${id}`, (s) => s.power_state === "stopped");
    const restStarted = Date.now();
    const atRest = await call(`/servers/${id}/snapshots`, "POST", { name: "at rest" });
    const rest = await until(`/servers/${id}/snapshots/${atRest.id}`, (s) => s.state !== "creating");
    const restS = (Date.now() - restStarted) / 1000;
    console.log(
      `snapshot (stopped, ${rest.consistency}) ${restS.toFixed(1)} s, ` +
        `${((rest.size_bytes as number) / 2 ** 20).toFixed(0)} MiB on the host`,
    );

    await call(`/servers/${id}`, "DELETE");
    while (virsh("domstate", domain)) await sleep(500);

    const p50 = (values: number[]) => percentile(values, 50);
    console.log(
      `\nTCG, tiny test guest (512 MiB, 1 vCPU, 4 GiB disk), ${WRITTEN_MIB} MiB written (server disk ` +
        `${(diskBytes / 2 ** 20).toFixed(0)} MiB on the host), ${ROUNDS} rounds, load ${loadAverage()}`,
    );
    console.log(
      "snapshot running p50   size p50   guest stall max   (baseline max)   restore->active p50   ->SSH p50   snapshot stopped",
    );
    console.log(
      [
        `${p50(rounds.map((r) => r.snapshotS)).toFixed(1)} s`.padStart(21),
        `${(p50(rounds.map((r) => r.sizeBytes)) / 2 ** 20).toFixed(0)} MiB`.padStart(10),
        `${Math.max(...rounds.map((r) => r.stallMs)).toFixed(0)} ms`.padStart(17),
        `${Math.max(...rounds.map((r) => r.baselineMs)).toFixed(0)} ms`.padStart(16),
        `${p50(rounds.map((r) => r.restoreS)).toFixed(1)} s`.padStart(21),
        `${p50(rounds.map((r) => r.loginS)).toFixed(1)} s`.padStart(11),
        `${restS.toFixed(1)} s`.padStart(18),
      ].join(" "),
    );
  } finally {
    await app.stop();
    cleanUp();
  }
  if (DEBIAN) {
    try {
      await debianRounds();
    } finally {
      cleanUp();
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
