/**
 * A bridged "host" for the isolation test: a Linux bridge of its own in this machine's namespace (libvirt
 * attaches the guests' taps there), with no uplink, so nothing on it leaves the machine. Its address is the
 * guests' gateway (the app's readiness probe and the test's SSH go through it), and an observer in a network
 * namespace of its own sits on the bridge like another tenant, capturing what reaches it.
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
  pool: `${NET}.10-${NET}.19`,
  observer: `${NET}.250`,
  netns: `${process.env.VM_TEST_PREFIX ?? "vpst-"}observer`,
  /** The observer's veth: this end on the bridge, the peer in the namespace as eth0. */
  veth: `${process.env.VM_TEST_BRIDGE ?? "vpstbr0"}o`,
};

const ip = (...args: string[]) => exec("ip", args);
const inObserver = (...args: string[]) => exec("ip", ["netns", "exec", TEST_BRIDGE.netns, ...args]);

/** Removes what an earlier run may have left: the bridge, the observer's veth and its namespace. */
export async function removeTestBridge(): Promise<void> {
  await ip("link", "del", TEST_BRIDGE.veth).catch(() => undefined);
  await ip("link", "del", TEST_BRIDGE.name).catch(() => undefined);
  await ip("netns", "del", TEST_BRIDGE.netns).catch(() => undefined);
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
  await ip("link", "set", name, "up");
  await ip("netns", "add", netns);
  await ip("link", "add", veth, "type", "veth", "peer", "name", `${veth}p`);
  await ip("link", "set", `${veth}p`, "netns", netns);
  await ip("link", "set", veth, "master", name, "up");
  await ip("-n", netns, "link", "set", `${veth}p`, "name", "eth0");
  await ip("-n", netns, "addr", "add", `${observer}/${prefix}`, "dev", "eth0");
  await ip("-n", netns, "link", "set", "eth0", "up");
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
