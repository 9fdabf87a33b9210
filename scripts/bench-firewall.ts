/**
 * The firewall's two figures (issue: rule change applied on the host p95 <= 1 s with 100 rules, on a local
 * and a remote host; throughput through a 100-rule firewall within 5 % of none):
 *
 * 1. Apply latency, end to end: the app with two bridged hosts (this machine's libvirtd as qemu:///system, and
 *    again behind a local sshd as qemu+libssh), one tiny guest on each, and BENCH_FW_CHANGES changes of a
 *    100-rule list per guest through `PUT /servers/{id}/firewall`. Timed from the request leaving to the
 *    host's table carrying the new revision (read with `nft` on this machine, where both hosts are).
 * 2. Throughput: iperf3 between two network namespaces across a bridge in a third (the host's forward path,
 *    bridged IP through its IP hooks, as for guests), with no table, and with the server's compiled table of
 *    100 rules the flow's first packet passes all of (99 rules that do not match, then the one that does).
 *
 * Needs root, libvirt, nft, iperf3 and the tiny guest (`npm run guest:build-tiny`); run under the VM lock:
 * `flock /tmp/vm.lock npm run bench:firewall`.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { promisify } from "node:util";
import { startApp } from "../e2e/support/app-server";
import { startLocalSshd } from "../e2e/vm/sshd";
import { swapScript, tableName } from "../lib/servers/network/compile";
import { type FirewallRule, normaliseRules, type RuleInput } from "../lib/servers/network/rules";
import { apiCaller, fundedAccount, removeMachines } from "./bench-host";
import { percentile } from "./percentile";

const exec = promisify(execFile);
const CHANGES = Number(process.env.BENCH_FW_CHANGES ?? 30);
const IPERF_SECONDS = Number(process.env.BENCH_FW_IPERF_SECONDS ?? 5);
const IPERF_RUNS = Number(process.env.BENCH_FW_IPERF_RUNS ?? 3);
const PREFIX = "vpsf-";
const TINY_IMAGES = process.env.TINY_GUEST_DIR ?? "/var/lib/vps/test-images";
const BRIDGE = "vpsfbr0";
const NET = "198.18.9";
const SSHD_PORT = Number(process.env.VM_TEST_SSH_PORT_BASE ?? 23600) + 450;

/** A 100-rule list; `variant` changes one port, so each change is a new revision with the same size. */
function hundredRules(variant: number): RuleInput[] {
  return [
    { direction: "in", protocol: "tcp", ports: "22", action: "accept" },
    ...Array.from({ length: 99 }, (_, index) => ({
      direction: "in" as const,
      protocol: "tcp" as const,
      ports: String(10_000 + index + (index === 0 ? variant % 2 : 0)),
      sources: ["203.0.113.0/24", "2001:db8:ffff::/48"],
      action: "accept" as const,
    })),
  ];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The revision the host's table of `domain` carries now, or undefined without one. */
async function tableRevision(domain: string): Promise<number | undefined> {
  try {
    const { stdout } = await exec("nft", ["list", "chain", "inet", tableName(domain), "forward"]);
    const match = /comment "revision (\d+)"/.exec(stdout);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function createBridge(): Promise<void> {
  await exec("ip", ["link", "del", BRIDGE]).catch(() => undefined);
  await exec("ip", ["link", "add", BRIDGE, "type", "bridge", "forward_delay", "0", "stp_state", "0"]);
  await exec("ip", ["addr", "add", `${NET}.1/24`, "dev", BRIDGE]);
  for (const setting of ["accept_ra=0", "autoconf=0", "disable_ipv6=0"]) {
    await exec("sysctl", ["-q", "-w", `net.ipv6.conf.${BRIDGE}.${setting}`]);
  }
  await exec("ip", ["-6", "addr", "add", "fe80::1/64", "dev", BRIDGE, "nodad"]);
  await exec("ip", ["link", "set", BRIDGE, "up"]);
}

type ApplyFigures = { host: string; ms: number[] };

async function applyLatency(): Promise<ApplyFigures[]> {
  removeMachines(PREFIX);
  await createBridge();
  const sshd = await startLocalSshd(SSHD_PORT);
  const hosts = [
    ["local", "qemu:///system"],
    ["remote", sshd.uri],
  ] as const;
  const app = await startApp({
    PROVISIONER: "libvirt",
    ALLOW_DEMO_LIBVIRT: "1",
    HYPERVISORS: JSON.stringify(
      hosts.map(([name, uri], index) => ({
        name,
        location: "nl",
        uri,
        memory_mb: 1024,
        vcpus: 1,
        disk_gb: 4,
        bridge: BRIDGE,
        ipv4_pool: `${NET}.${10 + index * 5}-${NET}.${14 + index * 5}`,
        ipv4_prefix: 24,
        ipv4_gateway: `${NET}.1`,
        ipv6_prefix: `2001:db8:79:${index + 1}00::/56`,
      })),
    ),
    GUEST_IMAGES_DIR: TINY_IMAGES,
    SERVER_DISKS_DIR: "/var/lib/vps/bench-servers-fw",
    LIBVIRT_DOMAIN_PREFIX: PREFIX,
    SERVER_MEMORY_CAP_MB: "1024",
    SERVER_DISK_CAP_GB: "4",
    WATCHER_INTERVAL_MS: "500",
  });
  const call = apiCaller(app.url);
  const figures: ApplyFigures[] = [];
  try {
    const { key } = await fundedAccount(call, 30, "USDTTRC");
    const servers = [];
    for (let index = 0; index < hosts.length; index++) {
      const created = await call("/servers", key, "POST", { plan: "pup", location: "nl", os: "debian-12" });
      if (typeof created.id !== "number") throw new Error(`order refused: ${JSON.stringify(created)}`);
      servers.push(created.id);
    }
    for (const id of servers) {
      let server = await call(`/servers/${id}`, key);
      while (server.status === "provisioning") {
        await sleep(500);
        server = await call(`/servers/${id}`, key);
      }
      if (server.status !== "active") throw new Error(`build failed: ${server.status_reason}`);
    }
    // The hosts are named in order and filled one server each: the first server is on the local host.
    for (const [index, id] of servers.entries()) {
      const domain = `${PREFIX}${id}`;
      const ms: number[] = [];
      for (let change = 0; change < CHANGES + 2; change++) {
        const before = (await tableRevision(domain)) ?? 0;
        const started = performance.now();
        const answer = call(`/servers/${id}/firewall`, key, "PUT", { rules: hundredRules(change) });
        let revision = before;
        while (revision <= before) {
          revision = (await tableRevision(domain)) ?? 0;
          if (revision <= before) await sleep(5);
        }
        const elapsed = performance.now() - started;
        const saved = await answer;
        if (saved.state !== "applied") throw new Error(`not applied: ${JSON.stringify(saved).slice(0, 300)}`);
        // The first two warm the SSH connection and the app's code paths.
        if (change >= 2) ms.push(elapsed);
      }
      figures.push({ host: `${hosts[index]?.[0]} (${hosts[index]?.[1].split(":")[0]})`, ms });
    }
  } finally {
    await app.stop();
    await sshd.stop();
    removeMachines(PREFIX);
    await exec("ip", ["link", "del", BRIDGE]).catch(() => undefined);
  }
  return figures;
}

/** iperf3 across a bridge in a namespace of its own, with and without a 100-rule table in front of the server. */
async function throughput(): Promise<{ none: number[]; hundred: number[] }> {
  const tag = `vpsfw${process.pid % 10000}`;
  const ns = { host: `${tag}h`, server: `${tag}s`, client: `${tag}c` };
  const inNs = (name: string, ...args: string[]) => exec("ip", ["netns", "exec", name, ...args]);
  const listeners: ChildProcess[] = [];
  try {
    for (const name of Object.values(ns)) await exec("ip", ["netns", "add", name]);
    await exec("ip", ["-n", ns.host, "link", "add", "br0", "type", "bridge"]);
    await exec("ip", ["-n", ns.host, "link", "set", "br0", "up"]);
    for (const [peer, address] of [
      [ns.server, "10.79.0.2"],
      [ns.client, "10.79.0.3"],
    ] as const) {
      const port = `p${peer.slice(-1)}`;
      await exec("ip", [
        "-n",
        ns.host,
        "link",
        "add",
        port,
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "netns",
        peer,
      ]);
      await exec("ip", ["-n", ns.host, "link", "set", port, "master", "br0", "up"]);
      await exec("ip", ["-n", peer, "link", "set", "lo", "up"]);
      await exec("ip", ["-n", peer, "link", "set", "eth0", "up"]);
      await exec("ip", ["-n", peer, "addr", "add", `${address}/24`, "dev", "eth0"]);
    }
    listeners.push(spawn("ip", ["netns", "exec", ns.server, "iperf3", "-s"], { stdio: "ignore" }));
    await sleep(500);
    const run = async () => {
      const { stdout } = await inNs(
        ns.client,
        "iperf3",
        "-c",
        "10.79.0.2",
        "-t",
        String(IPERF_SECONDS),
        "-J",
      );
      const report = JSON.parse(stdout) as { end: { sum_received: { bits_per_second: number } } };
      return report.end.sum_received.bits_per_second / 1e9;
    };
    const rules = normaliseRules([
      ...Array.from({ length: 99 }, (_, index) => ({
        direction: "in" as const,
        protocol: "tcp" as const,
        ports: String(20_000 + index),
        sources: ["203.0.113.0/24", "2001:db8:ffff::/48"],
        action: "accept" as const,
      })),
      { direction: "in", protocol: "tcp", ports: "5201", action: "accept" },
    ]) as FirewallRule[];
    const script = swapScript({
      table: tableName("vps-1"),
      revision: 1,
      ipv4: "10.79.0.2",
      ipv6Prefix: null,
      linkLocal: null,
      rules,
      smtpOpen: false,
    });
    const none: number[] = [];
    const hundred: number[] = [];
    // Alternated, so a machine growing busier meanwhile weighs on both alike.
    for (let round = 0; round < IPERF_RUNS; round++) {
      execFileSync("ip", ["netns", "exec", ns.host, "nft", "flush", "ruleset"]);
      none.push(await run());
      execFileSync("ip", ["netns", "exec", ns.host, "nft", "-f", "-"], { input: script });
      hundred.push(await run());
    }
    const { stdout } = await inNs(ns.host, "nft", "list", "chain", "inet", tableName("vps-1"), "inbound");
    const accepted = /tcp dport \{ 5201 \} counter packets (\d+)/.exec(stdout)?.[1];
    console.log(`  (the flows' first packets through all 100 rules: ${accepted} counted by the 100th)`);
    return { none, hundred };
  } finally {
    for (const child of listeners) child.kill();
    for (const name of Object.values(ns)) await exec("ip", ["netns", "del", name]).catch(() => undefined);
  }
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

async function main() {
  console.log(
    `firewall apply latency: ${CHANGES} changes of a 100-rule list per host, PUT -> table on the host`,
  );
  for (const { host, ms } of await applyLatency()) {
    console.log(
      `  ${host.padEnd(18)} p50 ${percentile(ms, 50).toFixed(0)} ms  p95 ${percentile(ms, 95).toFixed(0)} ms  ` +
        `max ${Math.max(...ms).toFixed(0)} ms  (n=${ms.length}; target p95 <= 1000 ms)`,
    );
  }
  console.log(
    `throughput (iperf3, ${IPERF_RUNS} x ${IPERF_SECONDS} s each, between namespaces across a bridge):`,
  );
  const { none, hundred } = await throughput();
  const change = (mean(hundred) / mean(none) - 1) * 100;
  console.log(
    `  no firewall        ${none.map((v) => v.toFixed(2)).join(", ")} Gbit/s, mean ${mean(none).toFixed(2)}`,
  );
  console.log(
    `  100-rule firewall  ${hundred.map((v) => v.toFixed(2)).join(", ")} Gbit/s, mean ${mean(hundred).toFixed(2)}`,
  );
  console.log(`  difference ${change >= 0 ? "+" : ""}${change.toFixed(1)} % (target: within 5 %)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
