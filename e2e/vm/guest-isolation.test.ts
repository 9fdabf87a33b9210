/**
 * Two TINY TEST GUESTS on a bridge of the test's own (see bridge.ts), one on each of two hosts sharing it (this
 * machine's libvirtd reached as qemu:///system, and again through a local sshd as qemu+libssh), each with a
 * routed IPv6 /64, shared by these tests:
 * - tenants sharing a bridge cannot take each other's address: one of them claims its neighbour's IPv4 and
 *   IPv6 addresses as a root user can; an observer on the bridge sees the neighbour's genuine frames and none
 *   of the claimant's spoofed ARP, IPv4 or IPv6 ones;
 * - a real router advertisement on the bridge (from the observer, as a rogue router would send it) gives an
 *   unfiltered neighbour an IPv6 address, and neither guest one, though one of them has turned IPv6
 *   autoconfiguration on as its root may: the filter drops the frame before it reaches the guest;
 * - IPv6: each guest answers on its `::1` from a namespace behind its own link to this machine (routed by the
 *   route the app set on the host);
 * - the firewall on both hosts: only 22 allowed lets SSH in and drops 8080, over IPv4 (bridged, from the
 *   observer) and IPv6 (routed, from upstream); a rule change keeps an established connection; the rules
 *   survive a reboot (local host) and a restore (remote host), and a host that lost them gets them back;
 * - usage from the host (bridged cards are libvirt's, so their bytes are counted): data sent into and out of a
 *   guest over SSH shows in its metrics, a busy loop shows as CPU, and past a tiny allowance the card is slowed
 *   until the next period.
 *
 * The bridge is in this machine's network namespace, the observer and the neighbour each in one the test
 * creates: libvirt attaches a guest's tap, and binds its filter, only to a bridge in libvirtd's own namespace
 * (bridge.ts says what was tried).
 */

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalAddress } from "../../lib/servers/network/addresses";
import { fund } from "../api/funding";
import { api, createAccount, targetApp } from "../api/helpers";
import {
  advertiseRouterFromObserver,
  arpingFromObserver,
  captureAtObserver,
  createTestBridge,
  type Frame,
  IPV6_AUTOCONF,
  neighbourAddresses,
  removeTestBridge,
  TEST_BRIDGE,
  tcpFrom,
} from "./bridge";
import { TINY_METRICS_INTERVAL_SECONDS, TRAFFIC_CAP_MB } from "./global-setup";
import {
  domstate,
  type Server,
  type SshSession,
  sshOpen,
  sshRun,
  sshWhenUp,
  TINY_BOOT_MS,
  TINY_PREFIX,
  virsh,
  waitFor,
} from "./host";

targetApp("tinyBaseUrl");

const BOOT_MS = TINY_BOOT_MS;
const OBSERVER = TEST_BRIDGE.observer;

/** Whether a frame's decoded text names `address` (as sender, target or source), IPv4 or IPv6. */
const names = (frame: Frame, address: string) =>
  address.includes(":")
    ? new RegExp(`(^|[^0-9a-f:])${address}(?![0-9a-f]|:[0-9a-f])`).test(frame.text)
    : frame.text.split(/[\s,:()]+/).includes(address);

type Guest = {
  id: number;
  ip: string;
  ipv6: string;
  ipv6Prefix: string;
  domain: string;
  xml: string;
  mac: string;
  run: (command: string, input?: Buffer) => Promise<string>;
  /** The kernel's id of the guest's current boot; the last one seen while the guest does not answer. */
  bootId: (lastSeen?: string) => Promise<string>;
  /** An SSH connection to it kept open. */
  open: () => Promise<SshSession>;
};

describe("bridged guests (tiny test guest)", () => {
  let apiKey: string;
  let a: Guest;
  let b: Guest;

  beforeAll(async () => {
    const startedAt = Date.now();
    await createTestBridge();
    ({ apiKey } = await createAccount());
    await fund(apiKey, 30);
    // Location ro has only bridged-1, a host whose guests sit on the test bridge with pool addresses.
    const order = async (hostname: string) => {
      const ordered = await api("/servers", {
        method: "POST",
        key: apiKey,
        body: { plan: "pup", location: "ro", os: "debian-12", hostname },
      });
      expect(ordered.status).toBe(201);
      const created = ordered.body as unknown as Server & { root_password: string };
      const server = await waitFor(
        async () => (await api(`/servers/${created.id}`, { key: apiKey })).body as unknown as Server,
        (s) => s.status !== "provisioning",
        BOOT_MS,
      );
      expect(server).toMatchObject({ status: "active", ssh_port: 22, status_reason: null });
      const domain = `${TINY_PREFIX}${server.id}`;
      const xml = (await virsh("dumpxml", domain)).out;
      const mac = /<mac address='([0-9a-f:]{17})'\/>/.exec(xml)?.[1] ?? "";
      const login = { password: created.root_password };
      const target = { host: server.ip as string, port: 22 };
      const pinned = server.ssh_host_key_fingerprint as string;
      const run = (command: string, input?: Buffer) => sshRun(target, pinned, login, command, 120_000, input);
      await sshWhenUp(target, pinned, login, "true", BOOT_MS);
      return {
        id: server.id,
        ip: server.ip as string,
        ipv6: server.ipv6 as string,
        ipv6Prefix: server.ipv6_prefix as string,
        domain,
        xml,
        mac,
        run,
        bootId: (lastSeen = "") =>
          sshRun(target, pinned, login, "cat /proc/sys/kernel/random/boot_id", 10_000).catch(() => lastSeen),
        open: () => sshOpen(target, pinned, login, 120_000),
      };
    };
    [a, b] = await Promise.all([order("iso-a"), order("iso-b")]);
    console.log(
      `two bridged tiny guests up and logged into in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
  }, 2 * BOOT_MS);

  afterAll(async () => {
    for (const server of [a, b]) {
      if (!server) continue;
      const ended = await api(`/servers/${server.id}`, { method: "DELETE", key: apiKey });
      expect([200, 409]).toContain(ended.status);
    }
    for (const server of [a, b]) {
      if (!server) continue;
      await waitFor(
        () => domstate(server.domain),
        (state) => state === "missing",
        60_000,
      );
    }
    await removeTestBridge();
  }, 120_000);

  it("a guest claiming its neighbour's address: none of its spoofed ARP, IPv4 or IPv6 frames reach the bridge", async () => {
    const startedAt = Date.now();
    expect(a.ip).not.toBe(b.ip);
    expect(a.mac).not.toBe(b.mac);

    const capture = await captureAtObserver();
    // Genuine traffic of both guests, from their own addresses: it reaches the observer.
    expect(await a.run(`ping -c 2 -W 2 ${OBSERVER} | grep -c 'bytes from'`)).toBe("2");
    expect(await b.run(`ping -c 2 -W 2 ${OBSERVER} | grep -c 'bytes from'`)).toBe("2");
    // A sends IPv6 from its own address to all nodes: genuine, it passes.
    expect(await a.run(`ping6 -c 2 -W 1 -I ${a.ipv6} ff02::1 >/dev/null; echo sent`)).toBe("sent");
    // A takes B's addresses and announces the IPv4 one (gratuitous ARP), sends IPv4 from it, and IPv6 to all
    // nodes (where a router advertisement goes) from B's IPv6 address and from its own link. Each tool reports
    // what it sent.
    const attack = await a.run(
      [
        `ip addr add ${b.ip}/${TEST_BRIDGE.prefix} dev eth0`,
        `ip -6 addr add ${b.ipv6}/64 dev eth0`,
        `arping -U -c 2 -I eth0 -s ${b.ip} ${b.ip}`,
        // Past duplicate address detection (whose probe its filter drops: a guest needs none).
        "sleep 2",
        `ping -c 2 -W 1 -I ${b.ip} ${OBSERVER}`,
        `ping6 -c 2 -W 1 -I ${b.ipv6} ff02::1`,
        "true",
      ].join("; "),
    );
    expect(attack).toMatch(/Sent 2 probe/);
    expect(attack.match(/2 packets transmitted/g)).toHaveLength(2);
    // The observer asks who has B's address while A claims it too: only B answers.
    const answered = await arpingFromObserver(b.ip);
    await a.run(`ip addr del ${b.ip}/${TEST_BRIDGE.prefix} dev eth0; ip -6 addr del ${b.ipv6}/64 dev eth0`);
    const frames = await capture.stop();

    const fromA = frames.filter((frame) => frame.source === a.mac);
    const fromB = frames.filter((frame) => frame.source === b.mac);
    const spoofed = fromA.filter((frame) => names(frame, b.ip) || names(frame, b.ipv6));
    const ipv6 = fromA.filter((frame) => frame.ethertype === "IPv6");
    console.log(
      `observer: ${frames.length} frames; from A ${fromA.length} (naming B's addresses ${spoofed.length}, IPv6 ${ipv6.length}); ` +
        `from B ${fromB.length}; ARP replies for B's address from ${JSON.stringify(answered)} (A ${a.mac}, B ${b.mac})`,
    );
    expect(
      fromA.some(
        (f) => f.ethertype === "IPv4" && f.text.startsWith(`${a.ip} > ${OBSERVER}: ICMP echo request`),
      ),
    ).toBe(true);
    expect(
      fromB.some(
        (f) => f.ethertype === "IPv4" && f.text.startsWith(`${b.ip} > ${OBSERVER}: ICMP echo request`),
      ),
    ).toBe(true);
    expect(spoofed).toEqual([]);
    // A's own IPv6 went out, and only from its own /64 or its link.
    expect(ipv6.some((frame) => frame.text.startsWith(`${a.ipv6} > ff02::1: ICMP6, echo request`))).toBe(
      true,
    );
    const ownNetwork = a.ipv6Prefix.replace("::/64", ":");
    expect(
      ipv6.every((frame) => ["fe80::", "::", ownNetwork].some((start) => frame.text.startsWith(start))),
    ).toBe(true);
    expect(answered.length).toBeGreaterThan(0);
    expect(new Set(answered)).toEqual(new Set([b.mac]));

    // What made it so: each bridged card carries the filter for guests with IPv6, bound to its own addresses.
    for (const server of [a, b]) {
      // libvirt lists a filter's parameters by name, whatever order they were defined in.
      const filter =
        /<filterref filter='vps-clean-traffic-v6'>([\s\S]*?)<\/filterref>/.exec(server.xml)?.[1] ?? "";
      const parameters = [...filter.matchAll(/<parameter name='(\w+)' value='([^']*)'\/>/g)].map(
        ([, name, value]) => [name, value],
      );
      expect(Object.fromEntries(parameters)).toMatchObject({
        IP: server.ip,
        IPV6_NET: server.ipv6Prefix.replace("/64", ""),
        IPV6_LL: expect.stringMatching(/^fe80::[0-9a-f:]+$/),
      });
      expect(parameters).toHaveLength(3);
    }

    console.log(`guest isolation test: ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  });

  it("a router advertisement on the bridge: an unfiltered neighbour takes an address from it, no guest does", async () => {
    const startedAt = Date.now();
    const advertised = `${TEST_BRIDGE.advertisedPrefix}:`;
    /**
     * The guest's global IPv6 addresses on its card, from /proc/net/if_inet6 (32 hex digits, interface index,
     * prefix length, scope: 00 global, 20 link-local; flags; name).
     */
    const addressesOf = async (guest: Guest, scope: "00" | "20") =>
      (await guest.run("cat /proc/net/if_inet6"))
        .split("\n")
        .map((line) => line.trim().split(/\s+/))
        .filter((fields) => fields[5] === "eth0" && fields[3] === scope)
        .map((fields) => (fields[0] ?? "").replace(/(.{4})(?!$)/g, "$1:"));
    const guestAddresses = async (guest: Guest) =>
      (await addressesOf(guest, "00")).map((address) => canonicalAddress(address) ?? address);
    // A's root turns IPv6 autoconfiguration on (what the seed turns off on a real image): only the host's
    // filter is left between it and a rogue router. B keeps what it booted with.
    await a.run(IPV6_AUTOCONF.map((setting) => `sysctl -w ${setting}`).join("; "));
    expect(
      await a.run("cat /proc/sys/net/ipv6/conf/eth0/accept_ra /proc/sys/net/ipv6/conf/eth0/autoconf"),
    ).toBe("1\n1");
    // IPv6 is up on A's card (it has its link-local address), so an advertisement that reached it would count.
    expect(await addressesOf(a, "20")).toHaveLength(1);
    expect(await neighbourAddresses()).toEqual([]);

    let taken: string[] = [];
    for (let sent = 0; sent < 5 && !taken.some((address) => address.startsWith(advertised)); sent++) {
      await advertiseRouterFromObserver();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      taken = await neighbourAddresses();
    }
    // The advertisement is real: a machine on the bridge without the filter configured itself from it.
    expect(taken.some((address) => address.startsWith(advertised))).toBe(true);
    // Neither guest did, given the same frames and time.
    await advertiseRouterFromObserver();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const onA = await guestAddresses(a);
    const onB = await guestAddresses(b);
    console.log(
      `router advertisement for ${advertised}:/64: the neighbour took ${JSON.stringify(taken)}, ` +
        `guest A ${JSON.stringify(onA)}, guest B ${JSON.stringify(onB)} ` +
        `(${((Date.now() - startedAt) / 1000).toFixed(1)} s)`,
    );
    // Each keeps only the address its seed gave it.
    expect(onA).toEqual([a.ipv6]);
    expect(onB).toEqual([b.ipv6]);
  });

  it("IPv6: each guest answers on its ::1 from upstream, through the route its host was given", async () => {
    const startedAt = Date.now();
    for (const guest of [a, b]) {
      expect(guest.ipv6).toBe(guest.ipv6Prefix.replace("::/64", "::1"));
      // The host routes the /64 to the guest's ::1, pinned to the guest's card.
      const route = await run("ip", ["-6", "route", "show", guest.ipv6Prefix]);
      expect(route.stdout).toContain(`via ${guest.ipv6} dev ${TEST_BRIDGE.name}`);
      const neighbour = await run("ip", ["-6", "neigh", "show", guest.ipv6, "dev", TEST_BRIDGE.name]);
      expect(neighbour.stdout).toMatch(new RegExp(`lladdr ${guest.mac} PERMANENT`));
      const probe = await tcpFrom(TEST_BRIDGE.upstreamNetns, guest.ipv6, 22, 5_000);
      expect(probe).toMatchObject({ reach: "open" });
      expect(probe.greeting).toMatch(/^SSH-2\.0-/);
    }
    // And the guest reaches upstream from its address.
    expect(await a.run(`ping6 -c 1 -W 2 ${TEST_BRIDGE.upstream} | grep -c 'bytes from'`)).toBe("1");
    console.log(`IPv6 test: ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  });

  it("firewall on both hosts: only 22 allowed lets SSH in and drops 8080, IPv4 and IPv6; a rule change keeps an established connection", async () => {
    const startedAt = Date.now();
    const firewallOf = (guest: Guest) => `/servers/${guest.id}/firewall`;
    const setRules = async (guest: Guest, rules: unknown[]) => {
      const sent = Date.now();
      const saved = await api(firewallOf(guest), { method: "PUT", key: apiKey, body: { rules } });
      expect(saved.status).toBe(200);
      expect(saved.body).toMatchObject({ state: "applied", error: null });
      return Date.now() - sent;
    };
    const ssh = { direction: "in", protocol: "tcp", ports: "22", action: "accept" };
    // Nothing listens on 8080 in a guest: reached, it refuses; filtered, the connection times out.
    for (const guest of [a, b]) {
      expect((await tcpFrom(TEST_BRIDGE.netns, guest.ip, 8080)).reach).toBe("refused");
    }
    const applied = [await setRules(a, [ssh]), await setRules(b, [ssh])];
    for (const guest of [a, b]) {
      const table = await run("nft", ["list", "table", "inet", `vpsfw_${guest.domain.replace(/-/g, "_")}`]);
      // nft lists a single port bare, a set of them in braces.
      expect(table.stdout).toMatch(/tcp dport (22|\{ 22 \}) counter/);
      for (const [netns, address] of [
        [TEST_BRIDGE.netns, guest.ip],
        [TEST_BRIDGE.upstreamNetns, guest.ipv6],
      ] as const) {
        expect((await tcpFrom(netns, address, 22, 5_000)).greeting).toMatch(/^SSH-2\.0-/);
        expect((await tcpFrom(netns, address, 8080, 1_500)).reach).toBe("timeout");
      }
      // The simulator says the same, naming what decided.
      const asked = await api(`${firewallOf(guest)}/simulate`, {
        method: "POST",
        key: apiKey,
        body: { direction: "in", protocol: "tcp", port: 8080, remote_address: TEST_BRIDGE.upstream },
      });
      expect(asked.body).toMatchObject({ verdict: "drop", decided_by: "default" });
      // The host counted both: SSH accepted by the rule, 8080 dropped by the default.
      const counted = (await api(firewallOf(guest), { key: apiKey })).body as {
        rules: { hits: { packets: number } | null }[];
        default_inbound_hits: { packets: number } | null;
      };
      expect(counted.rules[0]?.hits?.packets).toBeGreaterThan(0);
      expect(counted.default_inbound_hits?.packets).toBeGreaterThan(0);
    }

    // A connection opened while 22 is allowed carries on after a change that drops new ones to 22: an SSH
    // connection made before the change runs a command after it.
    const kept = await a.open();
    expect(await kept.run("echo before")).toBe("before");
    applied.push(await setRules(a, [{ ...ssh, action: "drop" }]));
    expect((await tcpFrom(TEST_BRIDGE.netns, a.ip, 22, 1_500)).reach).toBe("timeout");
    expect(await kept.run("echo after")).toBe("after");
    kept.end();
    console.log(
      `firewall: applied in ${applied.join(", ")} ms (local, remote, local); the open session kept; ` +
        `${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
    await setRules(a, [ssh]);
  });

  it("the rules survive a reboot (local host) and a restore (remote host); a host that lost them gets them back", async () => {
    const startedAt = Date.now();
    const local = [a, b].find((guest) => guest.ipv6Prefix.startsWith("2001:db8:77:1")) as Guest;
    const remote = local === a ? b : a;
    const filtered = async (guest: Guest) => {
      // Just booted, the guest's IPv6 address may still be tentative (duplicate address detection) for a
      // moment after SSH answers on IPv4.
      const greeting = await waitFor(
        async () => (await tcpFrom(TEST_BRIDGE.upstreamNetns, guest.ipv6, 22, 5_000)).greeting,
        (text) => text.startsWith("SSH-"),
        30_000,
      );
      expect(greeting).toMatch(/^SSH-2\.0-/);
      expect((await tcpFrom(TEST_BRIDGE.netns, guest.ip, 8080, 1_500)).reach).toBe("timeout");
    };
    const up = (guest: Guest) =>
      waitFor(
        async () => (await tcpFrom(TEST_BRIDGE.netns, guest.ip, 22, 2_000)).greeting,
        (greeting) => greeting.startsWith("SSH-"),
        BOOT_MS,
      );

    const firstBoot = await local.bootId();
    const rebooted = await api(`/servers/${local.id}/actions`, {
      method: "POST",
      key: apiKey,
      body: { action: "reboot" },
    });
    expect(rebooted.status).toBe(200);
    // The reboot is asked of the guest: until it has gone down, SSH still answers from the old system.
    await waitFor(
      () => local.bootId(firstBoot),
      (id) => id !== firstBoot,
      BOOT_MS,
    );
    await up(local);
    await filtered(local);

    const taken = await api(`/servers/${remote.id}/snapshots`, { method: "POST", key: apiKey });
    expect(taken.status).toBe(202);
    const snapshotId = taken.body.id as number;
    await waitFor(
      async () => (await api(`/servers/${remote.id}/snapshots/${snapshotId}`, { key: apiKey })).body,
      (snapshot) => snapshot.state === "available",
      BOOT_MS,
    );
    const hostname = ((await api(`/servers/${remote.id}`, { key: apiKey })).body as { hostname: string })
      .hostname;
    const restoring = await api(`/servers/${remote.id}/snapshots/${snapshotId}/restore`, {
      method: "POST",
      key: apiKey,
      body: { confirm: hostname },
    });
    expect(restoring.status).toBe(202);
    await waitFor(
      async () => (await api(`/servers/${remote.id}`, { key: apiKey })).body as unknown as Server,
      (server) => server.status === "active",
      BOOT_MS,
    );
    await up(remote);
    await filtered(remote);
    expect(
      (await api(`/servers/${remote.id}/snapshots/${snapshotId}`, { method: "DELETE", key: apiKey })).status,
    ).toBe(202);

    // A host restart loses every table: reconciliation finds this one missing and applies it again.
    const table = `vpsfw_${local.domain.replace(/-/g, "_")}`;
    await run("nft", ["delete", "table", "inet", table]);
    expect((await tcpFrom(TEST_BRIDGE.netns, local.ip, 8080, 1_500)).reach).toBe("refused");
    const since = Date.now();
    await waitFor(
      () =>
        run("nft", ["list", "table", "inet", table]).then(
          () => true,
          () => false,
        ),
      (present) => present,
      60_000,
    );
    const back = Date.now() - since;
    await filtered(local);
    console.log(
      `firewall kept across a reboot and a restore; re-applied ${(back / 1000).toFixed(1)} s after the host lost it; ` +
        `${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
    // The usage test that follows sends its traffic over SSH: the rules go.
    for (const guest of [a, b]) {
      expect(
        (await api(`/servers/${guest.id}/firewall`, { method: "PUT", key: apiKey, body: { rules: [] } }))
          .status,
      ).toBe(200);
    }
  });

  it("usage from the host: bytes in and out over SSH, a busy loop, and past the allowance a slowed card, freed next period", async () => {
    const startedAt = Date.now();
    const intervalMs = TINY_METRICS_INTERVAL_SECONDS * 1000;
    type Metrics = {
      totals: { network_in_bytes: number; network_out_bytes: number };
      series: { cpu_percent: (number | null)[] };
    };
    type Traffic = {
      period_start: string;
      outbound_bytes: number;
      inbound_bytes: number;
      allowance_bytes: number;
      reached_80_percent_at: string | null;
      reached_100_percent_at: string | null;
      slowed_to_mbps: number | null;
    };
    const metrics = async (id: number) =>
      (await api(`/servers/${id}/metrics?period=1h`, { key: apiKey })).body as unknown as Metrics;
    const serverOf = async (id: number) =>
      (await api(`/servers/${id}`, { key: apiKey })).body as unknown as Server & {
        traffic: Traffic;
        expires_at: string;
      };
    /** How long until `done` holds of b's 1-hour metrics, polled every 200 ms (30 s at most). */
    const measuredWithin = async (done: (m: Metrics) => boolean) => {
      const from = Date.now();
      while (!done(await metrics(b.id))) {
        if (Date.now() - from > 30_000) throw new Error("the transfer never showed in the metrics");
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return Date.now() - from;
    };

    // CPU: a busy loop on guest A (its own core), while B moves data
    // (in an SSH session left open meanwhile: the guest's SSH server ends what a closed session started).
    const busyLoop = a.run("timeout 80 sh -c 'while :; do :; done'; echo stopped");
    const busySince = Date.now();

    // Into B: 3 MB of random bytes over its SSH port (received by the guest: "in").
    const size = 3_000_000;
    const before = await metrics(b.id);
    expect(await b.run("cat > /dev/null && echo received", randomBytes(size))).toBe("received");
    const inWithin = await measuredWithin(
      (m) => m.totals.network_in_bytes - before.totals.network_in_bytes >= size,
    );
    const afterIn = await metrics(b.id);
    // The other way only carried SSH's acknowledgements.
    expect(afterIn.totals.network_out_bytes - before.totals.network_out_bytes).toBeLessThan(size / 3);

    // Out of B: 3 MB of random bytes it sends over SSH ("out").
    const sent = await b.run(`head -c ${size} /dev/urandom`);
    expect(sent.length).toBeGreaterThan(size / 2);
    const outWithin = await measuredWithin(
      (m) => m.totals.network_out_bytes - afterIn.totals.network_out_bytes >= size,
    );
    console.log(
      `usage: ${size} bytes in shown after ${inWithin} ms, out after ${outWithin} ms (sampling every ${intervalMs} ms)`,
    );
    // Within two sampling intervals of the transfer's end (and the request that reads them).
    expect(inWithin).toBeLessThanOrEqual(2 * intervalMs + 1_500);
    expect(outWithin).toBeLessThanOrEqual(2 * intervalMs + 1_500);
    const counted = (await serverOf(b.id)).traffic;
    expect(counted.inbound_bytes).toBeGreaterThanOrEqual(size);
    expect(counted.outbound_bytes).toBeGreaterThanOrEqual(size);
    expect(counted.allowance_bytes).toBe(TRAFFIC_CAP_MB * 1_000_000);
    expect(counted.reached_80_percent_at).toBeNull();

    // Past the allowance (the test's tiny one): 80 % and 100 % recorded, and the host asked to slow the card.
    await b.run(`head -c ${TRAFFIC_CAP_MB * 1_000_000} /dev/urandom`);
    const over = await waitFor(
      () => serverOf(b.id),
      (s) => s.traffic.reached_100_percent_at !== null,
      30_000,
    );
    expect(over.traffic.reached_80_percent_at).not.toBeNull();
    expect(over).toMatchObject({ status: "active", power_state: "running" });
    const tune = async (...scope: string[]) => (await virsh("domiftune", b.domain, b.mac, ...scope)).out;
    if (await hostCanShape()) {
      // The card is slowed to 10 Mbit/s both ways (libvirt: kilobytes per second), live and in its definition.
      const slowed = await waitFor(
        () => serverOf(b.id),
        (s) => s.traffic.slowed_to_mbps !== null,
        30_000,
      );
      expect(slowed.traffic.slowed_to_mbps).toBe(10);
      for (const scope of [[], ["--config"]]) {
        expect(await tune(...scope)).toMatch(/inbound\.average: 1250\n[\s\S]*outbound\.average: 1250/);
      }
    } else {
      // This kernel lacks what libvirt's shaping needs (sch_sfq, act_police): the host refuses, nothing is
      // half-applied, the machine runs on, and the server does not claim a slowdown that is not there.
      console.log(
        "usage: this host's kernel cannot shape a card (no sch_sfq or act_police): slowdown refused",
      );
      await new Promise((resolve) => setTimeout(resolve, 2 * intervalMs));
      expect((await serverOf(b.id)).traffic.slowed_to_mbps).toBeNull();
      expect(await tune()).toMatch(/inbound\.average: 0\n[\s\S]*outbound\.average: 0/);
      expect(await tune("--config")).toMatch(/inbound\.average: 0\n[\s\S]*outbound\.average: 0/);
      expect(await domstate(b.domain)).toBe("running");
    }

    // Guest A's busy loop shows: a minute with its vCPU busy at least 25 % of the time, where an idle guest
    // shows under 5 % (under TCG on a shared 2-core machine the loop gets what the host gives it: 40-70 % here),
    // within a minute and a bit.
    const busy = await waitFor(
      () => metrics(a.id),
      (m) => (m.series.cpu_percent ?? []).some((value) => value !== null && value >= 25),
      Math.max(5_000, 90_000 - (Date.now() - busySince)),
    );
    console.log(
      `usage: busy guest's CPU per minute: ${JSON.stringify(busy.series.cpu_percent?.filter((v) => v !== null))}`,
    );
    await a.run("pkill -f 'whil[e] :' || true");
    expect(await busyLoop).toBe("stopped");
    expect((await api(`/servers/${a.id}`, { method: "DELETE", key: apiKey })).status).toBe(200);

    // The next period: business time moves past the expiry, auto-renew pays, the count starts at zero and the
    // card is free again.
    expect(
      (await api(`/servers/${b.id}`, { method: "PATCH", key: apiKey, body: { auto_renew: true } })).status,
    ).toBe(200);
    const expiresAt = Date.parse(over.expires_at);
    const serviceNow = Date.parse((await api("/demo/clock")).body.now as string);
    const advance = Math.ceil((expiresAt - serviceNow) / 1000) + 60;
    expect((await api("/demo/clock", { method: "POST", body: { advance_seconds: advance } })).status).toBe(
      200,
    );
    const next = await waitFor(
      () => serverOf(b.id),
      (s) =>
        Date.parse(s.expires_at) > expiresAt &&
        s.traffic.period_start !== over.traffic.period_start &&
        s.traffic.slowed_to_mbps === null,
      60_000,
    );
    expect(next).toMatchObject({ status: "active", power_state: "running" });
    expect(next.traffic).toMatchObject({ reached_80_percent_at: null, reached_100_percent_at: null });
    expect(next.traffic.outbound_bytes).toBeLessThan(TRAFFIC_CAP_MB * 1_000_000);
    await waitFor(tune, (out) => /inbound\.average: 0\n[\s\S]*outbound\.average: 0/.test(out), 30_000);
    expect(await tune("--config")).toMatch(/inbound\.average: 0\n[\s\S]*outbound\.average: 0/);
    console.log(`usage test: ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  });
});

const run = promisify(execFile);

/**
 * Whether this machine's kernel can do what libvirt's interface bandwidth runs (tc: an htb class with an sfq
 * queue for inbound, an ingress police filter for outbound), tried on a throwaway veth pair.
 */
async function hostCanShape(): Promise<boolean> {
  const dev = `${TEST_BRIDGE.name}q`;
  const tc = (...args: string[]) => run("tc", args);
  try {
    await run("ip", ["link", "add", dev, "type", "veth", "peer", "name", `${dev}p`]);
    await tc("qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1");
    await tc("class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", "10mbit");
    await tc("qdisc", "add", "dev", dev, "parent", "1:1", "handle", "2:", "sfq", "perturb", "10");
    await tc("qdisc", "add", "dev", dev, "ingress");
    await tc(
      ..."filter add dev DEV parent ffff: protocol all u32 match u32 0 0 police rate 10mbit burst 64kb mtu 64kb drop flowid :1"
        .replace("DEV", dev)
        .split(" "),
    );
    return true;
  } catch {
    return false;
  } finally {
    await run("ip", ["link", "del", dev]).catch(() => undefined);
  }
}
