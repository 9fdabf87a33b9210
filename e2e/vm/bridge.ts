/**
 * A bridged "host" for the isolation test: a Linux bridge of its own, with no uplink, so nothing on it leaves
 * the machine. Its address is the guests' gateway (the app's readiness probe and the test's SSH go through
 * it), and an observer in a network namespace of its own sits on the bridge like another tenant, capturing
 * what reaches it; a second namespace, a neighbour without any filter, shows what an unguarded machine on the
 * bridge would take.
 *
 * The bridge itself is in this machine's namespace, not in one the test creates: libvirt's QEMU driver makes
 * each guest's tap in its own (libvirtd's) namespace and enslaves it to the bridge named in the domain there,
 * and the clean-traffic filter is ebtables/iptables rules on that tap in the same namespace. A domain whose
 * bridge exists only in another namespace does not start ("Cannot get interface MTU on 'vpsgnsbr0': No such
 * device", tried here), and a tap moved into another namespace afterwards would leave the filter behind.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** A /24 of 198.18.0.0/15 (RFC 2544, benchmark testing, never routed on the internet) unless overridden. */
const NET = process.env.VM_TEST_BRIDGE_NET ?? "198.18.0";

export const TEST_BRIDGE = {
  name: process.env.VM_TEST_BRIDGE ?? "vpstbr0",
  subnet: `${NET}.0/24`,
  gateway: `${NET}.1`,
  prefix: 24,
  /** The two bridged hosts' halves of it. */
  pools: [`${NET}.10-${NET}.14`, `${NET}.15-${NET}.19`],
  observer: `${NET}.250`,
  netns: `${process.env.VM_TEST_PREFIX ?? "vpst-"}observer`,
  /** The observer's veth: this end on the bridge, the peer in the namespace as eth0. */
  veth: `${process.env.VM_TEST_BRIDGE ?? "vpstbr0"}o`,
  /** The unfiltered neighbour: its namespace and veth, like the observer's. */
  neighbourNetns: `${process.env.VM_TEST_PREFIX ?? "vpst-"}neighbour`,
  neighbourVeth: `${process.env.VM_TEST_BRIDGE ?? "vpstbr0"}n`,
  /** The prefix the test's router advertisement offers (2001:db8::/32 is for documentation only). */
  advertisedPrefix: "2001:db8:5:0",
  /** The guests' IPv6 gateway: this machine's link-local address on the bridge, as the app's default. */
  ipv6Gateway: "fe80::1",
  /** Each bridged host's IPv6 prefix: its servers' /64s are routed from it. */
  ipv6Prefixes: ["2001:db8:77:100::/56", "2001:db8:77:200::/56"],
  /**
   * The other end of routed IPv6: a namespace behind a link of its own to this machine (not on the bridge),
   * so its traffic to a guest's /64 takes the host's route and forwarding, as from the internet.
   */
  upstreamNetns: `${process.env.VM_TEST_PREFIX ?? "vpst-"}upstream`,
  upstreamVeth: `${process.env.VM_TEST_BRIDGE ?? "vpstbr0"}u`,
  upstreamHost: "2001:db8:77:ffff::1",
  upstream: "2001:db8:77:ffff::2",
};

const ip = (...args: string[]) => exec("ip", args);
const inObserver = (...args: string[]) => exec("ip", ["netns", "exec", TEST_BRIDGE.netns, ...args]);

/** Removes what an earlier run may have left: the bridge, the observer's veth and its namespace. */
export async function removeTestBridge(): Promise<void> {
  await ip("link", "del", TEST_BRIDGE.veth).catch(() => undefined);
  await ip("link", "del", TEST_BRIDGE.neighbourVeth).catch(() => undefined);
  await ip("link", "del", TEST_BRIDGE.upstreamVeth).catch(() => undefined);
  await ip("link", "del", TEST_BRIDGE.name).catch(() => undefined);
  await ip("netns", "del", TEST_BRIDGE.netns).catch(() => undefined);
  await ip("netns", "del", TEST_BRIDGE.neighbourNetns).catch(() => undefined);
  await ip("netns", "del", TEST_BRIDGE.upstreamNetns).catch(() => undefined);
  await restoreIpv6Forwarding();
}

/** What all.forwarding was before this test turned it on (kernels without per-interface forwarding). */
let forwardingBefore: string | undefined;

/**
 * IPv6 forwarding between the upstream link and the bridge, and nowhere else where the kernel allows it
 * (`force_forwarding` on the two interfaces, Linux 6.17 and later); else for the machine while the test runs.
 */
async function forwardIpv6(): Promise<void> {
  const { name, upstreamVeth } = TEST_BRIDGE;
  const perInterface = await exec("sysctl", ["-n", `net.ipv6.conf.${name}.force_forwarding`]).then(
    () => true,
    () => false,
  );
  if (perInterface) {
    for (const dev of [name, upstreamVeth]) {
      await exec("sysctl", ["-q", "-w", `net.ipv6.conf.${dev}.force_forwarding=1`]);
    }
    return;
  }
  forwardingBefore ??= (await exec("sysctl", ["-n", "net.ipv6.conf.all.forwarding"])).stdout.trim();
  await exec("sysctl", ["-q", "-w", "net.ipv6.conf.all.forwarding=1"]);
}

async function restoreIpv6Forwarding(): Promise<void> {
  if (forwardingBefore === undefined) return;
  await exec("sysctl", ["-q", "-w", `net.ipv6.conf.all.forwarding=${forwardingBefore}`]).catch(
    () => undefined,
  );
  forwardingBefore = undefined;
}

const toNumber = (address: string) =>
  address.split(".").reduce((value, part) => value * 256 + Number(part), 0);

/** Whether two IPv4 prefixes ("a.b.c.d/len", or a bare address) share any address. */
export function overlaps(one: string, other: string): boolean {
  const [a = "", aLength = "32"] = one.split("/");
  const [b = "", bLength = "32"] = other.split("/");
  const shorter = Math.min(Number(aLength), Number(bLength));
  const mask = shorter === 0 ? 0 : (0xffff_ffff << (32 - shorter)) >>> 0;
  return (toNumber(a) & mask) >>> 0 === (toNumber(b) & mask) >>> 0;
}

/**
 * Refuses to take a subnet this machine already reaches through another interface: the bridge's address
 * would shadow it (a gateway there would become a local address and cut the machine off).
 */
async function assertSubnetUnused(): Promise<void> {
  const { stdout } = await ip("-j", "-4", "route", "show", "table", "all");
  const routes = JSON.parse(stdout) as { dst: string; dev?: string }[];
  const clash = routes.find(
    (route) =>
      route.dst !== "default" && route.dev !== TEST_BRIDGE.name && overlaps(route.dst, TEST_BRIDGE.subnet),
  );
  if (clash) {
    throw new Error(
      `the test bridge's ${TEST_BRIDGE.subnet} is in use here (${clash.dst} dev ${clash.dev}): set VM_TEST_BRIDGE_NET to a free /24 such as 198.18.7`,
    );
  }
}

export async function createTestBridge(): Promise<void> {
  const { name, netns, veth, gateway, observer, prefix } = TEST_BRIDGE;
  await removeTestBridge();
  await assertSubnetUnused();
  await ip("link", "add", name, "type", "bridge", "forward_delay", "0", "stp_state", "0");
  await ip("addr", "add", `${gateway}/${prefix}`, "dev", name);
  // This machine is the guests' IPv6 router on the bridge (fe80::1), and takes nothing from advertisements
  // there: the test's rogue router advertisement is for those on it.
  for (const setting of ["accept_ra=0", "autoconf=0", "disable_ipv6=0"]) {
    await exec("sysctl", ["-q", "-w", `net.ipv6.conf.${name}.${setting}`]);
  }
  await ip("-6", "addr", "add", `${TEST_BRIDGE.ipv6Gateway}/64`, "dev", name, "nodad");
  await ip("link", "set", name, "up");
  await ip("netns", "add", netns);
  await ip("link", "add", veth, "type", "veth", "peer", "name", `${veth}p`);
  await ip("link", "set", `${veth}p`, "netns", netns);
  await ip("link", "set", veth, "master", name, "up");
  await ip("-n", netns, "link", "set", `${veth}p`, "name", "eth0");
  await ip("-n", netns, "addr", "add", `${observer}/${prefix}`, "dev", "eth0");
  await ip("-n", netns, "link", "set", "eth0", "up");
  // The neighbour: no address of its own, IPv6 autoconfiguration on as on any host that is not a router.
  const { neighbourNetns, neighbourVeth } = TEST_BRIDGE;
  await ip("netns", "add", neighbourNetns);
  await ip("link", "add", neighbourVeth, "type", "veth", "peer", "name", `${neighbourVeth}p`);
  await ip("link", "set", `${neighbourVeth}p`, "netns", neighbourNetns);
  await ip("link", "set", neighbourVeth, "master", name, "up");
  await ip("-n", neighbourNetns, "link", "set", `${neighbourVeth}p`, "name", "eth0");
  await exec("ip", ["netns", "exec", neighbourNetns, "sysctl", "-q", ...IPV6_AUTOCONF]);
  await ip("-n", neighbourNetns, "link", "set", "eth0", "up");
  // Upstream: its own link to this machine, routed to the guests' /64s by the routes the app sets.
  const { upstreamNetns, upstreamVeth, upstreamHost, upstream } = TEST_BRIDGE;
  await ip("netns", "add", upstreamNetns);
  await ip("link", "add", upstreamVeth, "type", "veth", "peer", "name", "eth0", "netns", upstreamNetns);
  await exec("sysctl", ["-q", "-w", `net.ipv6.conf.${upstreamVeth}.accept_ra=0`]);
  await ip("-6", "addr", "add", `${upstreamHost}/64`, "dev", upstreamVeth, "nodad");
  await ip("link", "set", upstreamVeth, "up");
  await ip("-n", upstreamNetns, "link", "set", "lo", "up");
  await ip("-n", upstreamNetns, "-6", "addr", "add", `${upstream}/64`, "dev", "eth0", "nodad");
  await ip("-n", upstreamNetns, "link", "set", "eth0", "up");
  await ip("-n", upstreamNetns, "-6", "route", "add", "default", "via", upstreamHost);
  await forwardIpv6();
}

export type Reach = "open" | "refused" | "timeout";

/**
 * A TCP connection from a test namespace to host:port: `open` (it answered; `greeting` is what it sent
 * first), `refused` (the machine said no: reached, nothing listening) or `timeout` (dropped on the way).
 */
export async function tcpFrom(
  netns: string,
  host: string,
  port: number,
  timeoutMs = 2_000,
): Promise<{ reach: Reach; greeting: string }> {
  const target = host.includes(":") ? `TCP6:[${host}]:${port}` : `TCP4:${host}:${port}`;
  const seconds = (timeoutMs / 1000).toFixed(1);
  return new Promise((resolve) => {
    const child = spawn(
      "ip",
      ["netns", "exec", netns, "socat", "-T", seconds, "-", `${target},connect-timeout=${seconds}`],
      {
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      // An SSH server's greeting is all a probe needs.
      if (out.includes("\n")) child.kill();
    });
    child.stderr?.on("data", (chunk) => {
      err += chunk;
    });
    child.once("exit", () => {
      const reach: Reach = out.length > 0 ? "open" : /refused/i.test(err) ? "refused" : "timeout";
      resolve({ reach, greeting: out.split("\n")[0] ?? "" });
    });
  });
}

/** The sysctls under which eth0 takes an address from a router advertisement (a host, not a router). */
export const IPV6_AUTOCONF = [
  "net.ipv6.conf.eth0.disable_ipv6=0",
  "net.ipv6.conf.eth0.forwarding=0",
  "net.ipv6.conf.eth0.accept_ra=1",
  "net.ipv6.conf.eth0.autoconf=1",
];

/**
 * A real router advertisement (ICMPv6 type 134, hop limit 255, from the observer's link-local address to all
 * nodes) offering TEST_BRIDGE.advertisedPrefix/64 for stateless autoconfiguration: what a rogue router, or a
 * tenant posing as one, sends. socat writes it on a raw ICMPv6 socket, so the kernel adds the IPv6 header and
 * the checksum.
 */
export async function advertiseRouterFromObserver(): Promise<void> {
  const prefix = TEST_BRIDGE.advertisedPrefix.split(":").map((group) => Number.parseInt(group, 16));
  const message = Buffer.alloc(48);
  message.writeUInt8(134, 0); // router advertisement; code and checksum 0 (the kernel fills the checksum)
  message.writeUInt8(64, 4); // hop limit for the hosts it configures; no flags; router lifetime 0
  // Prefix information option: type 3, 4 x 8 bytes, a /64 on-link (L) and for autoconfiguration (A).
  message.writeUInt8(3, 16);
  message.writeUInt8(4, 17);
  message.writeUInt8(64, 18);
  message.writeUInt8(0xc0, 19);
  message.writeUInt32BE(3600, 20); // valid lifetime
  message.writeUInt32BE(1800, 24); // preferred lifetime
  for (const [i, group] of prefix.entries()) message.writeUInt16BE(group, 32 + 2 * i);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      "ip",
      // IPV6_MULTICAST_HOPS (IPPROTO_IPV6 41, option 18) = 255: hosts ignore an advertisement that was routed.
      [
        "netns",
        "exec",
        TEST_BRIDGE.netns,
        "socat",
        "-u",
        "STDIN",
        "IP6-SENDTO:[ff02::1%eth0]:58,sockopt-int=41:18:255",
      ],
      { stdio: ["pipe", "ignore", "pipe"] },
    );
    let err = "";
    child.stderr?.on("data", (chunk) => {
      err += chunk;
    });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`socat: ${code} ${err}`))));
    child.stdin?.end(message);
  });
}

/** The global IPv6 addresses the neighbour holds on the bridge. */
export async function neighbourAddresses(): Promise<string[]> {
  const { stdout } = await ip(
    "-n",
    TEST_BRIDGE.neighbourNetns,
    "-6",
    "-o",
    "addr",
    "show",
    "dev",
    "eth0",
    "scope",
    "global",
  );
  return [...stdout.matchAll(/inet6 ([0-9a-f:]+)\//g)].map((match) => match[1] ?? "");
}

/** One frame as the observer's tcpdump printed it (`-e -n`). */
export type Frame = { source: string; ethertype: string; text: string };

export function parseFrame(line: string): Frame | undefined {
  const match = /^\S+ ([0-9a-f:]{17}) > [0-9a-f:]{17}, ethertype (\S+) \([^)]*\), length \d+: (.*)$/.exec(
    line,
  );
  return match ? { source: match[1] ?? "", ethertype: match[2] ?? "", text: match[3] ?? "" } : undefined;
}

/** Starts capturing every frame that reaches the observer; `stop` ends the capture and returns them. */
export async function captureAtObserver(): Promise<{ stop: () => Promise<Frame[]> }> {
  const child: ChildProcess = spawn(
    "ip",
    ["netns", "exec", TEST_BRIDGE.netns, "tcpdump", "-i", "eth0", "-l", "-n", "-e"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk) => {
    out += chunk;
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tcpdump did not start: ${err}`)), 10_000);
    child.stderr?.on("data", (chunk) => {
      err += chunk;
      if (err.includes("listening on")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", () => reject(new Error(`tcpdump exited: ${err}`)));
  });
  return {
    stop: async () => {
      child.kill("SIGINT");
      await exited;
      return out.split("\n").flatMap((line) => parseFrame(line) ?? []);
    },
  };
}

/** The MACs that answered the observer's ARP requests for `address` (busybox arping). */
export async function arpingFromObserver(address: string): Promise<string[]> {
  const { stdout } = await inObserver("busybox", "arping", "-c", "3", "-w", "4", "-I", "eth0", address).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
  );
  return [...stdout.matchAll(/reply from \S+ \[([0-9a-f:]{17})\]/gi)].map((m) => (m[1] ?? "").toLowerCase());
}
