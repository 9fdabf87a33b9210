import { Resolver } from "node:dns/promises";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { addOperator, operatorApi, signInOperator } from "../support/operator";
import { addForwardRecord } from "../support/powerdns";
import { fund } from "./funding";
import { api, createAccount, errorCode, type TestAccount, waitForServer } from "./helpers";

/**
 * A server's network over HTTP (the simulated provisioner, so no host filters anything here; the VM suite
 * proves the tables on real guests): its IPv6, its firewall's rules, their checks and the simulator, the
 * operator's SMTP switch, and reverse DNS written to the suite's own PowerDNS (global-setup.ts) and read back
 * with real DNS queries to it.
 */

type Server = { id: number; status: string; ip: string; ipv6: string | null; ipv6_prefix: string | null };
type Ptr = { address: string; name: string | null; default: boolean; state: string; reason: string | null };

const pdns = () => inject("powerDns");
/** Asks the suite's PowerDNS, as any resolver would. */
function resolver(): Resolver {
  const asking = new Resolver({ timeout: 2_000, tries: 1 });
  asking.setServers([pdns().dns]);
  return asking;
}
const reverse = (address: string) =>
  resolver()
    .reverse(address)
    .catch(() => [] as string[]);

async function orderServer(account: TestAccount): Promise<Server> {
  const ordered = await api("/servers", {
    method: "POST",
    key: account.apiKey,
    body: { plan: "pup", location: "nl", os: "debian-13" },
  });
  expect(ordered.status).toBe(201);
  return waitForServer<Server>(account.apiKey, ordered.body.id as number, (s) => s.status === "active");
}

const defaultName = (address: string) => `${address.replace(/[.:]/g, "-")}.rdns.vps.test`;

describe("a server's network", () => {
  let owner: TestAccount;
  let server: Server;

  beforeAll(async () => {
    owner = await createAccount();
    await fund(owner.apiKey, 40);
    server = await orderServer(owner);
  }, 120_000);

  it("has a /64 of its own, with its address at ::1", async () => {
    expect(server.ipv6_prefix).toMatch(/^2001:db8:[0-9a-f]+:[0-9a-f]+::\/64$/);
    expect(server.ipv6).toBe(server.ipv6_prefix?.replace("::/64", "::1"));
    const other = await orderServer(owner);
    expect(other.ipv6_prefix).not.toBe(server.ipv6_prefix);
    expect((await api(`/servers/${other.id}`, { method: "DELETE", key: owner.apiKey })).status).toBe(200);
  }, 60_000);

  it("firewall: none by default, a list replaced whole, bad rules refused naming the rule and changing nothing", async () => {
    const path = `/servers/${server.id}/firewall`;
    const initial = await api(path, { key: owner.apiKey });
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({
      available: true,
      rules: [],
      default_inbound: "accept",
      default_outbound: "accept",
      smtp: "blocked",
      state: "applied",
    });
    const put = (rules: unknown) => api(path, { method: "PUT", key: owner.apiKey, body: { rules } });
    const ssh = { direction: "in", protocol: "tcp", ports: "22", action: "accept" };
    for (const [rules, words] of [
      [[ssh, { ...ssh, protocol: "icmp" }], /rule 2: ports/],
      [[{ ...ssh, sources: ["10.0.0.0/33"] }], /rule 1: sources/],
      [[{ ...ssh, sources: ["10.0.0.0/8"], destinations: ["2001:db8::/32"] }], /share no address family/],
      [[{ ...ssh, ports: "0-70000" }], /not a port/],
    ] as const) {
      const refused = await put(rules);
      expect(refused.status).toBe(400);
      expect(errorCode(refused)).toBe("invalid_firewall_rules");
      expect(refused.body.message).toMatch(words);
    }
    expect(errorCode(await put(Array.from({ length: 101 }, () => ssh)))).toBe("invalid_firewall_rules");
    expect(errorCode(await put([{ ...ssh, priority: 1 }]))).toBe("unknown_field");
    expect(errorCode(await put([{ ...ssh, action: "reject" }]))).toBe("invalid_firewall_rules");
    expect((await api(path, { key: owner.apiKey })).body).toMatchObject({
      revision: initial.body.revision,
      rules: [],
    });

    const saved = await put([
      { ...ssh, sources: ["203.0.113.9/24", "2001:DB8:BEEF::/48"], description: "office" },
      { direction: "in", protocol: "icmp", action: "accept" },
      { direction: "out", protocol: "any", destinations: ["192.168.0.0/16"], action: "drop" },
    ]);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      default_inbound: "drop",
      state: "applied",
      revision: (initial.body.revision as number) + 1,
    });
    expect((saved.body.rules as Record<string, unknown>[])[0]).toMatchObject({
      sources: ["203.0.113.0/24", "2001:db8:beef::/48"],
      destinations: [],
      ports: "22",
      description: "office",
    });
    // A hundred rules is the limit, and fits.
    expect((await put(Array.from({ length: 100 }, () => ssh))).status).toBe(200);
    expect((await put(saved.body.rules)).status).toBe(400);
  });

  it("simulate: which rule decides a packet, the default, or the SMTP policy", async () => {
    const ssh = {
      direction: "in",
      protocol: "tcp",
      ports: "22",
      sources: ["203.0.113.0/24"],
      action: "accept",
    };
    const mail = { direction: "out", protocol: "tcp", ports: "25", action: "accept" };
    expect(
      (
        await api(`/servers/${server.id}/firewall`, {
          method: "PUT",
          key: owner.apiKey,
          body: { rules: [ssh, mail] },
        })
      ).status,
    ).toBe(200);
    const ask = (body: Record<string, unknown>) =>
      api(`/servers/${server.id}/firewall/simulate`, { method: "POST", key: owner.apiKey, body });
    expect(
      (await ask({ direction: "in", protocol: "tcp", port: 22, remote_address: "203.0.113.7" })).body,
    ).toMatchObject({
      verdict: "accept",
      decided_by: "rule",
      rule_index: 0,
      local_address: server.ip,
    });
    expect(
      (await ask({ direction: "in", protocol: "tcp", port: 8080, remote_address: "203.0.113.7" })).body,
    ).toMatchObject({
      verdict: "drop",
      decided_by: "default",
      rule: null,
    });
    const v6 = await ask({ direction: "in", protocol: "tcp", port: 22, remote_address: "2001:db8:ffff::1" });
    expect(v6.body).toMatchObject({ verdict: "drop", decided_by: "default", local_address: server.ipv6 });
    // The SMTP policy comes before the rules: the rule accepting 25 does not open it.
    const smtp = await ask({ direction: "out", protocol: "tcp", port: 25, remote_address: "198.51.100.25" });
    expect(smtp.body).toMatchObject({ verdict: "drop", decided_by: "smtp_policy" });
    for (const bad of [
      { direction: "in", protocol: "tcp", remote_address: "203.0.113.7" },
      { direction: "in", protocol: "icmp", port: 1, remote_address: "203.0.113.7" },
      { direction: "in", protocol: "tcp", port: 22, remote_address: "not-an-address" },
      {
        direction: "in",
        protocol: "tcp",
        port: 22,
        remote_address: "203.0.113.7",
        local_address: "203.0.113.8",
      },
    ]) {
      expect(errorCode(await ask(bad))).toBe("invalid_simulation");
    }
    // Another account's server is not there for it.
    const stranger = await createAccount();
    expect((await api(`/servers/${server.id}/firewall`, { key: stranger.apiKey })).status).toBe(404);
    expect(
      (
        await api(`/servers/${server.id}/firewall/simulate`, {
          method: "POST",
          key: stranger.apiKey,
          body: { direction: "in", protocol: "tcp", port: 22, remote_address: "203.0.113.7" },
        })
      ).status,
    ).toBe(404);
  });

  it("the operator opens outbound mail for one server, in the audit log; its owner sees it", async () => {
    const env = { ...inject("appEnv"), DATA_DIR: inject("appDataDir") };
    const support = await addOperator(env, "net-support", "support");
    const session = await signInOperator(inject("baseUrl"), support);
    const opened = await operatorApi(inject("baseUrl"), session, `/servers/${server.id}/smtp`, {
      method: "PUT",
      body: { open: true, reason: "customer runs a mail server, PTR set" },
    });
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({ server_id: server.id, smtp: "open" });
    const firewall = await api(`/servers/${server.id}/firewall`, { key: owner.apiKey });
    expect(firewall.body).toMatchObject({ smtp: "open", state: "applied" });
    const smtp = await api(`/servers/${server.id}/firewall/simulate`, {
      method: "POST",
      key: owner.apiKey,
      body: { direction: "out", protocol: "tcp", port: 25, remote_address: "198.51.100.25" },
    });
    expect(smtp.body).toMatchObject({ verdict: "accept", decided_by: "rule", rule_index: 1 });
    const missing = await operatorApi(inject("baseUrl"), session, `/servers/${server.id}/smtp`, {
      method: "PUT",
      body: { open: true },
    });
    expect(missing.status).toBe(400);
    const account = await operatorApi(inject("baseUrl"), session, `/accounts/${owner.userId}`);
    const listed = (account.body.servers as { id: number; smtp: string }[]).find((s) => s.id === server.id);
    expect(listed?.smtp).toBe("open");
  }, 120_000);
});

describe("reverse DNS in PowerDNS", () => {
  let owner: TestAccount;
  let server: Server;

  beforeAll(async () => {
    owner = await createAccount();
    await fund(owner.apiKey, 40);
    server = await orderServer(owner);
  }, 120_000);

  const ptrs = async () =>
    (await api(`/servers/${server.id}/rdns`, { key: owner.apiKey })).body as {
      managed: boolean;
      records: Ptr[];
    };
  const setPtr = (address: string, name: string) =>
    api(`/servers/${server.id}/rdns/${address}`, { method: "PUT", key: owner.apiKey, body: { name } });

  it("a built server's IPv4 and ::1 get generated names, answered by PowerDNS", async () => {
    const ipv6 = server.ipv6 as string;
    const listed = await waitForPtrs(ptrs, (list) =>
      list.records.every((record) => record.state === "applied"),
    );
    expect(listed.managed).toBe(true);
    expect(listed.records.map((record) => [record.address, record.name, record.default])).toEqual([
      [server.ip, defaultName(server.ip), true],
      [ipv6, defaultName(ipv6), true],
    ]);
    expect(await reverse(server.ip)).toEqual([defaultName(server.ip)]);
    expect(await reverse(ipv6)).toEqual([defaultName(ipv6)]);
  }, 60_000);

  it("sets a PTR once its name resolves to the address; refuses one that does not, saying what it resolves to", async () => {
    const ipv6 = server.ipv6 as string;
    const other = (server.ipv6_prefix as string).replace("::/64", "::25");
    const tag = `s${server.id}`;
    await addForwardRecord(pdns(), `mail-${tag}.example-${tag}.test`, server.ip);
    await addForwardRecord(pdns(), `v6-${tag}.example-${tag}.test`, other);
    await addForwardRecord(pdns(), `elsewhere-${tag}.example-${tag}.test`, "198.51.100.9");

    const elsewhere = await setPtr(server.ip, `elsewhere-${tag}.example-${tag}.test`);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body).toMatchObject({ error: "ptr_not_forward_confirmed", resolved: ["198.51.100.9"] });
    expect(elsewhere.body.message).toContain(`resolves to 198.51.100.9, not to ${server.ip}`);
    const nowhere = await setPtr(server.ip, `nowhere-${tag}.example-${tag}.test`);
    expect(nowhere.status).toBe(422);
    expect(nowhere.body).toMatchObject({ error: "ptr_not_forward_confirmed", resolved: [] });
    expect(nowhere.body.message).toMatch(/has no A record: the name does not exist/);
    // The IPv6 name points at ::25, not at ::1.
    expect((await setPtr(ipv6, `v6-${tag}.example-${tag}.test`)).status).toBe(422);
    expect(errorCode(await setPtr(server.ip, "not a name"))).toBe("invalid_ptr_name");
    expect(errorCode(await setPtr("not-an-address", `mail-${tag}.example-${tag}.test`))).toBe(
      "invalid_address",
    );
    expect((await setPtr("198.51.100.77", `mail-${tag}.example-${tag}.test`)).status).toBe(404);
    expect((await setPtr("2001:db8:ffff::1", `v6-${tag}.example-${tag}.test`)).status).toBe(404);
    // Nothing changed in DNS.
    expect(await reverse(server.ip)).toEqual([defaultName(server.ip)]);

    const mail = await setPtr(server.ip, `MAIL-${tag}.example-${tag}.test.`);
    expect(mail.status).toBe(200);
    expect(mail.body).toMatchObject({
      address: server.ip,
      name: `mail-${tag}.example-${tag}.test`,
      default: false,
      state: "applied",
    });
    expect(await reverse(server.ip)).toEqual([`mail-${tag}.example-${tag}.test`]);
    // Any address of the /64, written in any spelling.
    const v6 = await setPtr(
      other.replace("::25", ":0:0:0:25").toUpperCase(),
      `v6-${tag}.example-${tag}.test`,
    );
    expect(v6.status).toBe(200);
    expect(v6.body).toMatchObject({ address: other, state: "applied" });
    expect(await reverse(other)).toEqual([`v6-${tag}.example-${tag}.test`]);
    expect((await ptrs()).records.map((record) => record.address)).toEqual([server.ip, ipv6, other]);

    // Reset: the generated name for ::1 and the IPv4, none for another address.
    const reset = await api(`/servers/${server.id}/rdns/${other}`, { method: "DELETE", key: owner.apiKey });
    expect(reset.body).toMatchObject({ address: other, name: null, default: true });
    expect(await reverse(other)).toEqual([]);
  }, 60_000);

  it("DNS down never holds up an order: its PTRs wait pending with the reason, and are written once it is back", async () => {
    process.kill(pdns().pid, "SIGSTOP");
    let paused: Server;
    try {
      paused = await orderServer(owner);
      expect(paused.status).toBe("active");
      const waiting = await waitForPtrs(
        async () =>
          (await api(`/servers/${paused.id}/rdns`, { key: owner.apiKey })).body as {
            managed: boolean;
            records: Ptr[];
          },
        (list) =>
          list.records.length === 2 &&
          list.records.every((record) => record.reason?.startsWith("PowerDNS unreachable")),
      );
      expect(waiting.records.map((record) => record.state)).toEqual(["pending", "pending"]);
    } finally {
      process.kill(pdns().pid, "SIGCONT");
    }
    const written = await waitForPtrs(
      async () =>
        (await api(`/servers/${paused.id}/rdns`, { key: owner.apiKey })).body as {
          managed: boolean;
          records: Ptr[];
        },
      (list) => list.records.every((record) => record.state === "applied"),
      60_000,
    );
    expect(written.records.map((record) => record.reason)).toEqual([null, null]);
    expect(await reverse(paused.ip)).toEqual([defaultName(paused.ip)]);
  }, 120_000);

  it("termination gives the generated names back", async () => {
    const tag = `s${server.id}`;
    expect(await reverse(server.ip)).toEqual([`mail-${tag}.example-${tag}.test`]);
    expect((await api(`/servers/${server.id}`, { method: "DELETE", key: owner.apiKey })).status).toBe(200);
    const deadline = Date.now() + 30_000;
    while ((await reverse(server.ip))[0] !== defaultName(server.ip) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(await reverse(server.ip)).toEqual([defaultName(server.ip)]);
    expect(await reverse(server.ipv6 as string)).toEqual([defaultName(server.ipv6 as string)]);
    // A terminated server has no addresses to name.
    expect((await api(`/servers/${server.id}/rdns`, { key: owner.apiKey })).body.records).toEqual([]);
  }, 60_000);
});

async function waitForPtrs<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in ${ms} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
