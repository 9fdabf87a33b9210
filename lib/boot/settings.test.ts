import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@/lib/config/slice";
import { parseSettings as parseConfig } from "./settings";

const dataDir = () => mkdtempSync(path.join(tmpdir(), "vps-config-"));
const SECRET = "s".repeat(40);
const KEY = "ab".repeat(32);
const X402 = {
  X402_RPC_URL: "https://base.example/rpc",
  X402_PAY_TO: "0x2BCCcf425AC35bc15d9A9466e4f3ce0941fC2738",
  X402_RELAYER_PRIVATE_KEY: `0x${"11".repeat(32)}`,
};

describe("configuration", () => {
  it("defaults to demo mode with secrets generated once into DATA_DIR", () => {
    const dir = dataDir();
    const first = parseConfig({ DATA_DIR: dir });
    expect(first.core.mode).toBe("demo");
    expect(first.core.port).toBe(3000);
    expect(first.core.databaseUrl).toBeUndefined();
    expect(first.core.encryptionKey).toHaveLength(32);
    const file = path.join(dir, "demo-secrets.json");
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = parseConfig({ DATA_DIR: dir });
    expect(second.core.sessionPasswords).toEqual(first.core.sessionPasswords);
    expect(second.core.clientAddressKey.equals(first.core.clientAddressKey)).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")).sessionSecret).toBe(first.core.sessionPasswords["1"]);
  });

  it("switches to production when production secrets are given, generating nothing", () => {
    const dir = dataDir();
    const config = parseConfig({ DATA_DIR: dir, SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, ...X402 });
    expect(config.core.mode).toBe("production");
    expect(config.x402.demo).toBeUndefined();
    expect(config.keys.keys).toEqual({
      bitcoin: undefined,
      litecoin: undefined,
      ethereum: undefined,
      tron: undefined,
      monero: undefined,
    });
    expect(existsSync(path.join(dir, "demo-secrets.json"))).toBe(false);
  });

  it("names every missing production variable", () => {
    expect(() => parseConfig({ DATA_DIR: dataDir(), SESSION_SECRET: SECRET })).toThrow(
      /ENCRYPTION_KEY: required/,
    );
    expect(() => parseConfig({ DATA_DIR: dataDir(), APP_MODE: "production" })).toThrow(
      /SESSION_SECRET[\s\S]*ENCRYPTION_KEY[\s\S]*X402_RPC_URL[\s\S]*X402_PAY_TO[\s\S]*X402_RELAYER_PRIVATE_KEY/,
    );
  });

  it.each([
    [{ PORT: "seventy" }, /PORT/],
    [{ PORT: "70000" }, /PORT/],
    [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL: must be a postgres/],
    [{ SESSION_SECRET: "short" }, /SESSION_SECRET: must be at least 32/],
    [{ ENCRYPTION_KEY: "xyz" }, /ENCRYPTION_KEY: must be 64 hex/],
    [{ RATE_LIMIT_ACCOUNT_CREATE: "ten per hour" }, /RATE_LIMIT_ACCOUNT_CREATE: expected COUNT\/WINDOW/],
    [{ APP_MODE: "staging" }, /APP_MODE/],
    [{ X402_PAY_TO: "0x123" }, /X402_PAY_TO: must be a 0x-prefixed 20-byte address/],
    [{ X402_RELAYER_PRIVATE_KEY: "0xabc" }, /X402_RELAYER_PRIVATE_KEY: must be a 0x-prefixed 32-byte/],
    [{ X402_NETWORK: "ethereum" }, /X402_NETWORK/],
    [{ X402_FACILITATOR_URL: "ftp://facilitator" }, /X402_FACILITATOR_URL: must be an http\(s\) URL/],
    [
      { X402_FACILITATOR_HEADERS: "Authorization: Bearer x" },
      /X402_FACILITATOR_HEADERS: must be a JSON object/,
    ],
    [{ DEPOSIT_XPUB_BTC: "xpub-nonsense" }, /DEPOSIT_XPUB_BTC/],
    [{ DEPOSIT_CONFIRMATIONS: "ETH=3" }, /DEPOSIT_CONFIRMATIONS: expected COIN:COUNT/],
    [{ DEPOSIT_CONFIRMATIONS: "DOGE:3" }, /DEPOSIT_CONFIRMATIONS: unknown coin DOGE/],
    [{ APP_MODE: "production", ENABLE_TEST_CLOCK: "1" }, /ENABLE_TEST_CLOCK|required in production/],
    [{ LTC_PUSH: "notify" }, /LTC_PUSH=notify: needs DEPOSIT_NOTIFY_LISTEN and DEPOSIT_NOTIFY_SECRET/],
    [{ LTC_PUSH: "bcoin" }, /LTC_PUSH/],
    [
      { DEPOSIT_NOTIFY_LISTEN: "127.0.0.1:9735" },
      /DEPOSIT_NOTIFY_SECRET: required with DEPOSIT_NOTIFY_LISTEN/,
    ],
    [{ DEPOSIT_NOTIFY_LISTEN: "localhost:9735", DEPOSIT_NOTIFY_SECRET: SECRET }, /expected IP:PORT/],
    [{ DEPOSIT_NOTIFY_SECRET: "short" }, /DEPOSIT_NOTIFY_SECRET: must be at least 32/],
    [{ XMR_ZMQ_URL: "http://127.0.0.1:18084" }, /XMR_ZMQ_URL: must be a tcp/],
    [{ EVM_WS_URL: "https://node.example" }, /EVM_WS_URL: must be a ws\(s\) URL/],
  ])("refuses %j with a clear message", (env, message) => {
    const attempt = () => parseConfig({ DATA_DIR: dataDir(), ...env });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
  });

  it("reads the push settings: the notify listener, each node's push, the slower poll while it works", () => {
    const config = parseConfig({
      DATA_DIR: dataDir(),
      DEPOSIT_NOTIFY_LISTEN: "[::1]:9735",
      DEPOSIT_NOTIFY_SECRET: SECRET,
      LTC_PUSH: "notify",
      BTC_PUSH: "bcoin",
      WATCHER_INTERVAL_MS: "2000",
      WATCHER_PUSH_INTERVAL_MS: "1000",
    });
    expect(config.deposits.notify).toEqual({ host: "::1", port: 9735, secret: SECRET });
    expect([config.utxo.litecoin.push, config.utxo.bitcoin.push]).toEqual(["notify", "bcoin"]);
    // Never more often than the base interval.
    expect(config.deposits.pushIntervalMs).toBe(2000);
    expect(parseConfig({ DATA_DIR: dataDir() }).deposits).toMatchObject({
      notify: undefined,
      pushIntervalMs: 15_000,
    });
  });

  it("reads HYPERVISORS and the server caps; libvirt needs hosts", () => {
    const hosts = [
      { name: "nl-1", location: "nl", uri: "qemu:///system", memory_mb: 8192, vcpus: 4, disk_gb: 200 },
    ];
    const parsed = parseConfig({
      DATA_DIR: dataDir(),
      PROVISIONER: "libvirt",
      ALLOW_DEMO_LIBVIRT: "1",
      HYPERVISORS: JSON.stringify(hosts),
      SERVER_MEMORY_CAP_MB: "1024",
    });
    expect(parsed.servers.provisioner).toBe("libvirt");
    expect(parsed.servers.hypervisors).toEqual([
      { name: "nl-1", location: "nl", uri: "qemu:///system", memoryMb: 8192, vcpus: 4, diskGb: 200 },
    ]);
    expect(parsed.servers.memoryCapMb).toBe(1024);
    expect(parsed.servers.diskCapGb).toBeUndefined();
    expect(parseConfig({ DATA_DIR: dataDir() }).servers.provisioner).toBe("simulated");
    expect(() => parseConfig({ DATA_DIR: dataDir(), PROVISIONER: "libvirt" })).toThrow(
      /HYPERVISORS: required/,
    );
    expect(() => parseConfig({ DATA_DIR: dataDir(), HYPERVISORS: "[{" })).toThrow(
      /HYPERVISORS: must be a JSON/,
    );
    expect(() =>
      parseConfig({ DATA_DIR: dataDir(), HYPERVISORS: JSON.stringify([{ ...hosts[0], uri: "xen:///" }]) }),
    ).toThrow(/HYPERVISORS.0.uri/);
    expect(() =>
      parseConfig({ DATA_DIR: dataDir(), HYPERVISORS: JSON.stringify([{ ...hosts[0], location: "mars" }]) }),
    ).toThrow(/unknown location mars/);
    expect(() =>
      parseConfig({ DATA_DIR: dataDir(), HYPERVISORS: JSON.stringify([hosts[0], hosts[0]]) }),
    ).toThrow(/unique/);
  });

  it("refuses hosts whose guests would be unreachable or whose host key would go unchecked", () => {
    const host = { name: "nl-1", location: "nl", memory_mb: 8192, vcpus: 4, disk_gb: 200 };
    const bridge = {
      bridge: "br0",
      ipv4_pool: "203.0.113.10-203.0.113.40",
      ipv4_prefix: 24,
      ipv4_gateway: "203.0.113.1",
    };
    const parse = (uri: string, extra: object = {}) =>
      parseConfig({
        DATA_DIR: dataDir(),
        PROVISIONER: "libvirt",
        ALLOW_DEMO_LIBVIRT: "1",
        HYPERVISORS: JSON.stringify([{ ...host, uri, ...extra }]),
      }).servers.hypervisors[0]?.uri;
    // A host that is not this machine needs a bridge: forwarded ports would be on its own loopback.
    for (const uri of ["qemu+ssh://root@hv2.example.net/system", "qemu+libssh://root@10.0.0.2:2222/system"]) {
      expect(() => parse(uri)).toThrow(ConfigError);
      expect(() => parse(uri)).toThrow(/nl-1 needs a bridge .*only works for a host on this machine/);
      expect(parse(uri, bridge)).toBe(uri);
    }
    // This machine, also through an SSH transport to its own loopback, may forward ports.
    for (const uri of [
      "qemu:///system",
      "qemu+ssh://root@127.0.0.1:2222/system",
      "qemu+ssh://localhost/system",
    ]) {
      expect(parse(uri)).toBe(uri);
    }
    // A URI that turns the SSH host-key check off is refused, bridge or not.
    for (const query of [
      "no_verify=1",
      "No_Verify=yes",
      "known_hosts_verify=ignore",
      "known_hosts_verify=Auto",
    ]) {
      const uri = `qemu+libssh://root@hv2.example.net/system?keyfile=/etc/vps/hv-key&${query}`;
      expect(() => parse(uri, bridge)).toThrow(/nl-1 turns SSH host-key checking off/);
    }
    const checked = "qemu+libssh://root@hv2.example.net/system?no_verify=0&known_hosts_verify=normal";
    expect(parse(checked, bridge)).toBe(checked);
  });

  it("refuses real machines in demo mode unless ALLOW_DEMO_LIBVIRT=1 marks a test machine", () => {
    const libvirt = {
      PROVISIONER: "libvirt",
      HYPERVISORS: JSON.stringify([
        { name: "nl-1", location: "nl", uri: "qemu:///system", memory_mb: 8192, vcpus: 4, disk_gb: 200 },
      ]),
    };
    // Demo payments would buy real machines: a clear refusal naming the way out.
    const demo = () => parseConfig({ DATA_DIR: dataDir(), ...libvirt });
    expect(demo).toThrow(ConfigError);
    expect(demo).toThrow(/PROVISIONER: libvirt builds real machines.*production mode.*ALLOW_DEMO_LIBVIRT=1/);
    expect(() => parseConfig({ DATA_DIR: dataDir(), ...libvirt, ALLOW_DEMO_LIBVIRT: "0" })).toThrow(
      /ALLOW_DEMO_LIBVIRT=1/,
    );
    const allowed = parseConfig({ DATA_DIR: dataDir(), ...libvirt, ALLOW_DEMO_LIBVIRT: "1" });
    expect([allowed.core.mode, allowed.servers.provisioner, allowed.servers.demoLibvirt]).toEqual([
      "demo",
      "libvirt",
      true,
    ]);
    // Production takes libvirt without the switch, and refuses the switch, which means nothing there.
    const production = {
      DATA_DIR: dataDir(),
      SESSION_SECRET: SECRET,
      ENCRYPTION_KEY: KEY,
      ...X402,
      ...libvirt,
    };
    expect(parseConfig(production).servers).toMatchObject({ provisioner: "libvirt", demoLibvirt: false });
    expect(() => parseConfig({ ...production, ALLOW_DEMO_LIBVIRT: "1" })).toThrow(
      /ALLOW_DEMO_LIBVIRT: only for demo mode/,
    );
    // The switch alone changes nothing for the simulated provisioner.
    expect(parseConfig({ DATA_DIR: dataDir(), ALLOW_DEMO_LIBVIRT: "1" }).servers.demoLibvirt).toBe(false);
    expect(() => parseConfig({ DATA_DIR: dataDir(), ALLOW_DEMO_LIBVIRT: "yes" })).toThrow(
      /ALLOW_DEMO_LIBVIRT/,
    );
  });

  it("refuses a forwarded SSH port range that passes port 65535, and takes one that ends on it", () => {
    const range = (base: number, count: number) => ({
      DATA_DIR: dataDir(),
      SSH_FORWARD_PORT_BASE: String(base),
      SSH_FORWARD_PORT_COUNT: String(count),
    });
    const past = () => parseConfig(range(60_000, 5_537));
    expect(past).toThrow(ConfigError);
    expect(past).toThrow("SSH_FORWARD_PORT_COUNT: the range SSH_FORWARD_PORT_BASE..65536 passes port 65535");
    expect(parseConfig(range(60_000, 5_536)).servers).toMatchObject({
      sshForwardPortBase: 60_000,
      sshForwardPortCount: 5_536,
    });
  });

  it("reads rate limits written as COUNT/WINDOW", () => {
    const config = parseConfig({
      DATA_DIR: dataDir(),
      RATE_LIMIT_ACCOUNT_CREATE: "3/30s",
      RATE_LIMIT_AUTH_FAILURES: "7/2h",
      RATE_LIMIT_X402_ATTEMPTS: "5/1m",
      RATE_LIMIT_HOST_OPERATIONS: "4/2m",
    });
    expect(config.rateLimits.hostOperations).toEqual({ limit: 4, windowSeconds: 120 });
    expect(config.rateLimits.accountCreate).toEqual({ limit: 3, windowSeconds: 30 });
    expect(config.rateLimits.authFailures).toEqual({ limit: 7, windowSeconds: 7200 });
    expect(config.rateLimits.x402Attempts).toEqual({ limit: 5, windowSeconds: 60 });
    expect(parseConfig({ DATA_DIR: dataDir() }).rateLimits.x402Attempts).toEqual({
      limit: 30,
      windowSeconds: 600,
    });
    expect(parseConfig({ DATA_DIR: dataDir() }).rateLimits.hostOperations).toEqual({
      limit: 30,
      windowSeconds: 600,
    });
  });

  it("demo mode generates watch-only deposit keys and local-chain accounts once, and keeps them", () => {
    const dir = dataDir();
    const first = parseConfig({ DATA_DIR: dir });
    expect(first.keys.demoKeys).toBe(true);
    expect(first.keys.keys.bitcoin).toMatch(/^xpub/);
    expect(first.keys.keys.monero?.viewKey).toMatch(/^[0-9a-f]{64}$/);
    expect(first.x402.payTo).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(first.x402.rpcUrl).toBeUndefined();
    const second = parseConfig({ DATA_DIR: dir });
    expect(second.keys.keys).toEqual(first.keys.keys);
    expect(second.x402.payTo).toBe(first.x402.payTo);
    const stored = readFileSync(path.join(dir, "demo-secrets.json"), "utf8");
    expect(stored).not.toMatch(/xprv|tprv/);
  });

  it("uses the official USDC and its EIP-712 domain per network", () => {
    const base = parseConfig({ DATA_DIR: dataDir() }).x402;
    expect(base).toMatchObject({ network: "base", chainId: 8453, maxTimeoutSeconds: 300 });
    expect(base.usdc).toEqual({
      address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      name: "USD Coin",
      version: "2",
    });
    const sepolia = parseConfig({ DATA_DIR: dataDir(), X402_NETWORK: "base-sepolia" }).x402;
    expect(sepolia.chainId).toBe(84532);
    expect(sepolia.usdc.name).toBe("USDC");
  });

  it("a facilitator replaces the relayer key in production; its headers are parsed", () => {
    const { X402_RELAYER_PRIVATE_KEY: _key, ...withoutRelayer } = X402;
    const production = {
      DATA_DIR: dataDir(),
      SESSION_SECRET: SECRET,
      ENCRYPTION_KEY: KEY,
      ...withoutRelayer,
    };
    expect(() => parseConfig(production)).toThrow(/X402_RELAYER_PRIVATE_KEY: required/);
    const config = parseConfig({
      ...production,
      X402_FACILITATOR_URL: "https://facilitator.example",
      X402_FACILITATOR_HEADERS: '{"Authorization":"Bearer t0ken"}',
    });
    expect(config.x402.relayerPrivateKey).toBeUndefined();
    expect(config.x402.facilitator).toEqual({
      url: "https://facilitator.example",
      headers: { Authorization: "Bearer t0ken" },
    });
    expect(parseConfig({ DATA_DIR: dataDir() }).x402.facilitator).toBeUndefined();
  });

  it("refuses a TRON_USDT_ADDRESS whose base58check checksum is wrong, naming the variable", () => {
    const tron = { DATA_DIR: dataDir(), TRON_RPC_URL: "http://127.0.0.1:1/jsonrpc" };
    // Tether's TRC-20 contract with its last character changed: the right shape, a wrong checksum.
    expect(() => parseConfig({ ...tron, TRON_USDT_ADDRESS: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u" })).toThrow(
      /TRON_USDT_ADDRESS: .*checksum/,
    );
    expect(() => parseConfig({ ...tron, TRON_USDT_ADDRESS: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60" })).toThrow(
      /TRON_USDT_ADDRESS/,
    );
    const good = parseConfig({ ...tron, TRON_USDT_ADDRESS: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" });
    expect(good.tron.tokens.USDTTRC).toBe("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t");
    expect(
      parseConfig({ ...tron, TRON_USDT_ADDRESS: "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c" }).tron.tokens
        .USDTTRC,
    ).toBe("0xa614f803b6fd780986a42c78ec9c7f77e6ded13c");
  });
});
