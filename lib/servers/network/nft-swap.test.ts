import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removalScript, swapScript, tableName } from "./compile";
import { type FirewallRule, normaliseRule, type RuleInput } from "./rules";

/**
 * The compiled tables in a real kernel, in network namespaces this test makes (nothing of this machine's own
 * rule set is touched): a "host" namespace with a bridge (its bridged IP traffic passing its IP hooks, as on a
 * hypervisor), a server and a client on it. Needs root, `ip` and `nft`; elsewhere it says why it is skipped.
 */
const exec = promisify(execFile);
const canRun = process.getuid?.() === 0 && existsSync("/usr/sbin/nft") && existsSync("/usr/sbin/ip");
if (!canRun) console.log("nft-swap.test.ts skipped: needs root, nft and ip (CI runs it)");

const tag = `vpsnft${process.pid % 100000}`;
const ns = { host: `${tag}h`, server: `${tag}s`, client: `${tag}c` };
const SERVER = { v4: "10.77.0.2", v6: "2001:db8:77:9::1", prefix: "2001:db8:77:9::/64" };
const CLIENT = { v4: "10.77.0.3", v6: "2001:db8:77:8::3" };
const TABLE = tableName("vps-9");
/** Table swaps per run (each one `nft -f` in the host namespace, some 40-90 ms here). */
const SWAPS = 40;

const inNs = (name: string, ...args: string[]) => exec("ip", ["netns", "exec", name, ...args]);

async function nft(script: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn("ip", ["netns", "exec", ns.host, "nft", "-f", "-"], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    let err = "";
    child.stderr?.on("data", (chunk) => {
      err += chunk;
    });
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`nft: ${err}`))));
    child.stdin?.end(script);
  });
}

const rule = (input: Partial<RuleInput>): FirewallRule => {
  const made = normaliseRule({ direction: "in", protocol: "tcp", action: "accept", ...input });
  if (typeof made === "string") throw new Error(made);
  return made;
};

const table = (rules: FirewallRule[], revision = 1) =>
  swapScript({
    table: TABLE,
    revision,
    ipv4: SERVER.v4,
    ipv6Prefix: SERVER.prefix,
    linkLocal: "fe80::5054:ff:fe00:9",
    rules,
    smtpOpen: false,
  });

/** Whether a TCP connection from the client namespace to host:port is answered within `ms`. */
async function connects(host: string, port: number, ms = 1500): Promise<boolean> {
  const target = host.includes(":") ? `TCP6:[${host}]:${port}` : `TCP4:${host}:${port}`;
  try {
    const { stdout } = await inNs(
      ns.client,
      "socat",
      "-T",
      "1",
      "-",
      `${target},connect-timeout=${ms / 1000}`,
    );
    return stdout.startsWith("hello");
  } catch {
    return false;
  }
}

describe.runIf(canRun)("compiled firewall tables in a real kernel (network namespaces)", () => {
  const listeners: ChildProcess[] = [];

  beforeAll(async () => {
    for (const name of Object.values(ns)) await exec("ip", ["netns", "add", name]);
    await exec("ip", ["-n", ns.host, "link", "add", "br0", "type", "bridge"]);
    await exec("ip", ["-n", ns.host, "link", "set", "br0", "up"]);
    for (const [peer, v4, v6, other] of [
      [ns.server, SERVER.v4, `${SERVER.v6}/64`, "2001:db8:77:8::/64"],
      [ns.client, CLIENT.v4, `${CLIENT.v6}/64`, "2001:db8:77:9::/64"],
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
      await exec("ip", ["-n", peer, "addr", "add", `${v4}/24`, "dev", "eth0"]);
      await exec("ip", ["-n", peer, "addr", "add", v6, "dev", "eth0", "nodad"]);
      // The other /64 is on the same link: the two talk across the bridge, as through a hypervisor's.
      await exec("ip", ["-n", peer, "-6", "route", "add", other, "dev", "eth0"]);
    }
    // 22 and 8080 greet; 9000 echoes what it gets (the long-lived flow below).
    for (const [port, command] of [
      [22, "echo hello"],
      [8080, "echo hello"],
      [9000, "cat"],
    ] as const) {
      listeners.push(
        spawn(
          "ip",
          [
            "netns",
            "exec",
            ns.server,
            "socat",
            `TCP6-LISTEN:${port},fork,reuseaddr,ipv6only=0`,
            `EXEC:${command}`,
          ],
          { stdio: "ignore" },
        ),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }, 30_000);

  afterAll(async () => {
    for (const child of listeners) child.kill();
    for (const name of Object.values(ns)) await exec("ip", ["netns", "del", name]).catch(() => undefined);
  });

  it("takes a table holding every rule shape, and a rule allowing only 22 lets SSH in and drops 8080, v4 and v6", async () => {
    await nft(
      table([
        rule({ ports: "22" }),
        rule({ protocol: "udp", ports: "53,5353-5400", sources: ["10.0.0.0/8", "2001:db8::/32"] }),
        rule({ protocol: "icmp", sources: ["192.0.2.0/24"] }),
        rule({ protocol: "any", destinations: ["2001:db8:77:9::25"], action: "drop" }),
        rule({ direction: "out", protocol: "tcp", ports: "80,443", action: "accept" }),
        rule({ direction: "out", protocol: "any", destinations: ["192.168.0.0/16"], action: "drop" }),
        rule({ direction: "out", protocol: "icmp", action: "drop" }),
      ]),
    );
    await nft(table([rule({ ports: "22" })], 2));
    expect(await connects(SERVER.v4, 22)).toBe(true);
    expect(await connects(SERVER.v6, 22)).toBe(true);
    expect(await connects(SERVER.v4, 8080, 1000)).toBe(false);
    expect(await connects(SERVER.v6, 8080, 1000)).toBe(false);
    const { stdout } = await exec("ip", ["netns", "exec", ns.host, "nft", "list", "table", "inet", TABLE]);
    expect(stdout).toContain('comment "revision 2"');
    await nft(removalScript(TABLE));
    expect(await connects(SERVER.v4, 8080)).toBe(true);
  }, 30_000);

  it("swaps atomically: swaps while probes arrive let none through, and a flow carries on across them", async () => {
    const versions = [
      table([rule({ ports: "22" }), rule({ ports: "9000" })], 3),
      table([rule({ ports: "9000" }), rule({ protocol: "udp", ports: "53" }), rule({ ports: "22" })], 4),
    ];
    await nft(versions[0] ?? "");
    // A flow opened while 9000 is accepted, kept open across every swap.
    const flowChild = spawn("ip", ["netns", "exec", ns.client, "socat", "-", `TCP4:${SERVER.v4}:9000`], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    let echoed = "";
    flowChild.stdout?.on("data", (chunk) => {
      echoed += chunk;
    });
    // Probes: UDP datagrams to a port both versions drop (the default), one every few milliseconds; the
    // server counts what arrives.
    const probe = async (during: () => Promise<void>) => {
      const receiver = spawn("ip", ["netns", "exec", ns.server, "socat", "-u", "UDP4-RECV:9999", "-"], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      let arrived = 0;
      receiver.stdout?.on("data", (chunk: Buffer) => {
        arrived += chunk.toString().split("\n").filter(Boolean).length;
      });
      const sender = spawn(
        "ip",
        [
          "netns",
          "exec",
          ns.client,
          "socat",
          "-u",
          "SYSTEM:while true; do echo p; sleep 0.002; done",
          `UDP4-SENDTO:${SERVER.v4}:9999`,
        ],
        // A group of its own: socat's shell loop is killed with it, not left running after the test.
        { stdio: "ignore", detached: true },
      );
      try {
        await during();
      } finally {
        if (sender.pid) process.kill(-sender.pid, "SIGKILL");
        await new Promise((resolve) => setTimeout(resolve, 200));
        receiver.kill();
      }
      return arrived;
    };

    let sent = 0;
    const atomic = await probe(async () => {
      for (let swap = 0; swap < SWAPS; swap++) {
        await nft(versions[swap % 2] ?? "");
        if (swap % 10 === 0) {
          flowChild.stdin?.write(`line ${sent}\n`);
          sent++;
        }
      }
    });
    flowChild.stdin?.write("last\n");
    await new Promise((resolve) => setTimeout(resolve, 500));
    flowChild.kill();

    // The same probes while the table is removed and defined again in two steps, as a non-atomic update
    // would: they get through the gap, so the probe would have seen one above.
    const gaps = await probe(async () => {
      for (let swap = 0; swap < SWAPS; swap++) {
        await nft(removalScript(TABLE));
        await nft(versions[swap % 2] ?? "");
      }
    });
    console.log(
      `probes through: ${atomic} during ${SWAPS} atomic swaps, ${gaps} during ${SWAPS} two-step updates`,
    );
    expect(atomic).toBe(0);
    expect(gaps).toBeGreaterThan(0);
    expect(echoed.split("\n").filter(Boolean)).toEqual([
      ...Array.from({ length: sent }, (_, i) => `line ${i}`),
      "last",
    ]);
    await nft(removalScript(TABLE));
  }, 120_000);
});
