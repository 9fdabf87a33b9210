/**
 * Tenants sharing a bridge cannot take each other's address: two TINY TEST GUESTS on a bridge of the test's
 * own (see bridge.ts), one of them claiming its neighbour's address as a root user can. An observer on the
 * bridge sees the neighbour's genuine frames and none of the claimant's spoofed ARP, IPv4 or IPv6 ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fund } from "../api/funding";
import { api, createAccount, targetApp } from "../api/helpers";
import {
  arpingFromObserver,
  captureAtObserver,
  createTestBridge,
  type Frame,
  removeTestBridge,
  TEST_BRIDGE,
} from "./bridge";
import { domstate, type Server, sshRun, sshWhenUp, TINY_PREFIX, virsh, waitFor } from "./host";

targetApp("tinyBaseUrl");

const BOOT_MS = 120_000;
const OBSERVER = TEST_BRIDGE.observer;

/** Whether a frame's decoded text names `address` (as sender, target or source). */
const names = (frame: Frame, address: string) => frame.text.split(/[\s,:()]+/).includes(address);

describe("bridged guests (tiny test guest, libvirt clean-traffic)", () => {
  beforeAll(createTestBridge);
  afterAll(removeTestBridge);

  it("a guest claiming its neighbour's address: none of its spoofed ARP, IPv4 or IPv6 frames reach the bridge", async () => {
    const startedAt = Date.now();
    const { apiKey } = await createAccount();
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
      const run = (command: string) => sshRun(target, pinned, login, command);
      await sshWhenUp(target, pinned, login, "true", BOOT_MS);
      return { id: server.id, ip: server.ip as string, domain, xml, mac, run };
    };
    const [a, b] = await Promise.all([order("iso-a"), order("iso-b")]);
    if (!a || !b) throw new Error("two servers were ordered");
    console.log(
      `two bridged tiny guests up and logged into in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
    expect(a.ip).not.toBe(b.ip);
    expect(a.mac).not.toBe(b.mac);

    const capture = await captureAtObserver();
    // Genuine traffic of both guests, from their own addresses: it reaches the observer.
    expect(await a.run(`ping -c 2 -W 2 ${OBSERVER} | grep -c 'bytes from'`)).toBe("2");
    expect(await b.run(`ping -c 2 -W 2 ${OBSERVER} | grep -c 'bytes from'`)).toBe("2");
    // A takes B's address and announces it (gratuitous ARP), sends IPv4 from it, and IPv6 to all nodes
    // (an IPv6 frame to ff02::1, where a router advertisement goes). Each tool reports what it sent.
    const attack = await a.run(
      [
        `ip addr add ${b.ip}/${TEST_BRIDGE.prefix} dev eth0`,
        `arping -U -c 2 -I eth0 -s ${b.ip} ${b.ip}`,
        `ping -c 2 -W 1 -I ${b.ip} ${OBSERVER}`,
        "ping6 -c 2 -W 1 -I eth0 ff02::1",
        "true",
      ].join("; "),
    );
    expect(attack).toMatch(/Sent 2 probe/);
    expect(attack.match(/2 packets transmitted/g)).toHaveLength(2);
    // The observer asks who has B's address while A claims it too: only B answers.
    const answered = await arpingFromObserver(b.ip);
    await a.run(`ip addr del ${b.ip}/${TEST_BRIDGE.prefix} dev eth0`);
    const frames = await capture.stop();

    const fromA = frames.filter((frame) => frame.source === a.mac);
    const fromB = frames.filter((frame) => frame.source === b.mac);
    const spoofed = fromA.filter((frame) => names(frame, b.ip));
    const ipv6 = fromA.filter((frame) => frame.ethertype === "IPv6");
    console.log(
      `observer: ${frames.length} frames; from A ${fromA.length} (naming B's address ${spoofed.length}, IPv6 ${ipv6.length}); ` +
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
    expect(ipv6).toEqual([]);
    expect(answered.length).toBeGreaterThan(0);
    expect(new Set(answered)).toEqual(new Set([b.mac]));

    // What made it so: each bridged card carries libvirt's clean-traffic filter bound to its own address.
    for (const server of [a, b]) {
      expect(server.xml).toMatch(
        new RegExp(
          `<filterref filter='clean-traffic'>\\s*<parameter name='IP' value='${server.ip}'/>\\s*</filterref>`,
        ),
      );
    }

    for (const server of [a, b]) {
      expect((await api(`/servers/${server.id}`, { method: "DELETE", key: apiKey })).status).toBe(200);
    }
    for (const server of [a, b]) {
      await waitFor(
        () => domstate(server.domain),
        (state) => state === "missing",
        60_000,
      );
    }
    console.log(`guest isolation test: ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  });
});
