import "server-only";
import path from "node:path";
import { z } from "zod";
import { LOCATIONS } from "@/lib/catalog/catalog";
import { ConfigError, envSlice, optionalText } from "@/lib/config/slice";
import { canonicalAddress, contains, type Network, parseNetwork } from "./network/addresses";

/** One hypervisor host of HYPERVISORS. */
const hypervisorSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lower-case letters, digits and hyphens"),
  location: z.string().min(1),
  uri: z
    .string()
    .regex(
      /^qemu(\+(ssh|libssh|libssh2))?:\/\/[^\s]*\/system(\?[^\s]*)?$/,
      "a libvirt URI such as qemu:///system or qemu+ssh://user@host/system",
    ),
  memory_mb: z.number().int().min(128),
  vcpus: z.number().int().min(1),
  disk_gb: z.number().int().min(1),
  /** Bridged networking: the host's bridge and its public IPv4 pool; absent, user-mode with a forwarded port. */
  bridge: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,15}$/, "a Linux interface name")
    .optional(),
  ipv4_pool: z
    .string()
    .regex(
      /^(\d{1,3}(\.\d{1,3}){3})-(\d{1,3}(\.\d{1,3}){3})$/,
      "first-last IPv4 address, e.g. 203.0.113.10-203.0.113.40",
    )
    .optional(),
  ipv4_prefix: z.number().int().min(8).max(32).optional(),
  ipv4_gateway: z.ipv4().optional(),
  nameservers: z.array(z.ipv4()).max(3).optional(),
  /** A routed IPv6 prefix (/32 to /63) from which each server on the host gets a /64; needs a bridge. */
  ipv6_prefix: z.string().max(64).optional(),
  /** The guests' IPv6 gateway: the host's address on the bridge (link-local by default, fe80::1). */
  ipv6_gateway: z.ipv6().optional(),
});
const hypervisorsSchema = z.array(hypervisorSchema).min(1);

export type HypervisorHost = {
  name: string;
  location: string;
  uri: string;
  memoryMb: number;
  vcpus: number;
  diskGb: number;
  /** Bridged hosts: guests get the pool's addresses on the bridge; others get a forwarded SSH port. */
  network?: HostNetwork;
};

export type HostNetwork = {
  bridge: string;
  /** The pool's first and last address, inclusive. */
  pool: { first: string; last: string };
  prefix: number;
  gateway: string;
  nameservers: string[];
  /** Where the host hands out IPv6: each server a /64 of `prefix`, routed to it, gateway on the bridge. */
  ipv6?: HostIpv6;
};

export type HostIpv6 = { prefix: Network; gateway: string };

const ipv4Number = (address: string) =>
  address.split(".").reduce((value, part) => value * 256 + Number(part), 0);

/** The host's IPv6 settings, or what is wrong with them. */
function hostIpv6(host: z.infer<typeof hypervisorSchema>): HostIpv6 | string | undefined {
  if (host.ipv6_prefix === undefined) {
    return host.ipv6_gateway === undefined
      ? undefined
      : `HYPERVISORS: ${host.name} has ipv6_gateway without ipv6_prefix`;
  }
  const prefix = parseNetwork(host.ipv6_prefix);
  if (prefix?.family !== 6 || prefix.length < 32 || prefix.length > 63) {
    return `HYPERVISORS: ${host.name} has an invalid ipv6_prefix (an IPv6 network of /32 to /63, e.g. 2001:db8:1:100::/56)`;
  }
  return { prefix, gateway: canonicalAddress(host.ipv6_gateway ?? "fe80::1") ?? "fe80::1" };
}

function hostNetwork(host: z.infer<typeof hypervisorSchema>): HostNetwork | string | undefined {
  const fields = [host.bridge, host.ipv4_pool, host.ipv4_prefix, host.ipv4_gateway];
  const ipv6 = hostIpv6(host);
  if (typeof ipv6 === "string") return ipv6;
  if (fields.every((field) => field === undefined) && host.nameservers === undefined) {
    return ipv6 ? `HYPERVISORS: ${host.name} needs a bridge (with its IPv4 pool) for ipv6_prefix` : undefined;
  }
  if (fields.some((field) => field === undefined)) {
    return `HYPERVISORS: ${host.name} needs bridge, ipv4_pool, ipv4_prefix and ipv4_gateway together`;
  }
  const [first = "", last = ""] = (host.ipv4_pool as string).split("-");
  const valid = (address: string) => address.split(".").every((part) => Number(part) <= 255);
  if (!valid(first) || !valid(last) || ipv4Number(first) > ipv4Number(last)) {
    return `HYPERVISORS: ${host.name} has an invalid ipv4_pool`;
  }
  return {
    bridge: host.bridge as string,
    pool: { first, last },
    prefix: host.ipv4_prefix as number,
    gateway: host.ipv4_gateway as string,
    nameservers: host.nameservers ?? [],
    ...(ipv6 ? { ipv6 } : {}),
  };
}

/** Two hosts handing out /64s of one prefix would give two servers the same addresses. */
function overlappingIpv6(hosts: readonly (readonly [string, HostNetwork | string | undefined])[]) {
  const withIpv6 = hosts.flatMap(([name, network]) =>
    typeof network === "object" && network.ipv6 ? [{ name, prefix: network.ipv6.prefix }] : [],
  );
  for (const [index, one] of withIpv6.entries()) {
    for (const other of withIpv6.slice(index + 1)) {
      const shorter = one.prefix.length <= other.prefix.length ? one.prefix : other.prefix;
      const longer = shorter === one.prefix ? other.prefix : one.prefix;
      if (contains(shorter, longer.address)) {
        return `HYPERVISORS: ${one.name} and ${other.name} have overlapping ipv6_prefix`;
      }
    }
  }
  return undefined;
}

const LOOPBACK_HOSTS = new Set(["", "localhost", "[::1]"]);

/**
 * What makes a host unsafe to use: a URI that turns the SSH host-key check off (libvirt's `no_verify` for
 * every SSH transport, `known_hosts_verify` for libssh), or no bridge on a host that is not this machine (its
 * guests' forwarded ports would be on ITS loopback, and the readiness probe would check this machine's).
 */
function hostProblems(host: z.infer<typeof hypervisorSchema>, network: HostNetwork | undefined): string[] {
  const problems: string[] = [];
  let uri: URL;
  try {
    uri = new URL(host.uri);
  } catch {
    return [`HYPERVISORS: ${host.name} has an invalid uri`];
  }
  for (const [name, value] of uri.searchParams) {
    const param = name.toLowerCase();
    if (
      (param === "no_verify" && value !== "0") ||
      (param === "known_hosts_verify" && value.toLowerCase() !== "normal")
    ) {
      problems.push(
        `HYPERVISORS: ${host.name} turns SSH host-key checking off (${name}=${value}); pin the host's key in known_hosts instead`,
      );
    }
  }
  const loopback = LOOPBACK_HOSTS.has(uri.hostname) || /^127(\.\d{1,3}){3}$/.test(uri.hostname);
  if (!network && !loopback) {
    problems.push(
      `HYPERVISORS: ${host.name} needs a bridge (with ipv4_pool, ipv4_prefix, ipv4_gateway): without one its guests' SSH is forwarded from the loopback of ${uri.hostname}, which only works for a host on this machine`,
    );
  }
  return problems;
}

function parseHypervisors(text: string | undefined): HypervisorHost[] | string[] {
  if (text === undefined) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return ["HYPERVISORS: must be a JSON array of {name, location, uri, memory_mb, vcpus, disk_gb}"];
  }
  const parsed = hypervisorsSchema.safeParse(raw);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => `HYPERVISORS.${issue.path.join(".")}: ${issue.message}`);
  }
  const names = parsed.data.map((host) => host.name);
  if (new Set(names).size !== names.length) return ["HYPERVISORS: host names must be unique"];
  const networks = parsed.data.map(hostNetwork);
  const problems = networks.filter((network): network is string => typeof network === "string");
  if (problems.length > 0) return problems;
  const overlap = overlappingIpv6(parsed.data.map((host, index) => [host.name, networks[index]] as const));
  if (overlap) return [overlap];
  const unsafe = parsed.data.flatMap((host, index) =>
    hostProblems(host, networks[index] as HostNetwork | undefined),
  );
  if (unsafe.length > 0) return unsafe;
  return parsed.data.map((host, index) => ({
    name: host.name,
    location: host.location,
    uri: host.uri,
    memoryMb: host.memory_mb,
    vcpus: host.vcpus,
    diskGb: host.disk_gb,
    ...(networks[index] ? { network: networks[index] as HostNetwork } : {}),
  }));
}

export type ServerSettings = {
  provisionDelaySeconds: number;
  graceDays: number;
  /** Snapshots a server may keep (taken on request or before a reinstall); they cost nothing. */
  snapshotsPerServer: number;
  /** How long a server terminated because its period lapsed keeps its last disk (0: removed at once). */
  retentionDays: number;
  provisioner: "simulated" | "libvirt";
  /** Real machines in demo mode, allowed by ALLOW_DEMO_LIBVIRT=1 for test machines: /health shows it. */
  demoLibvirt: boolean;
  /** Empty: no placement (the simulated provisioner's default); otherwise every order is placed on one. */
  hypervisors: HypervisorHost[];
  guestImagesDir: string;
  serverDisksDir: string;
  memoryCapMb: number | undefined;
  diskCapGb: number | undefined;
  sshForwardPortBase: number;
  /** How many ports from the base may be forwarded: one per server on a host without a bridge. */
  sshForwardPortCount: number;
  bootTimeoutSeconds: number;
  /** How long from its order a build waits for a host that cannot be reached before it is refunded. */
  buildHostWaitSeconds: number;
  stopTimeoutSeconds: number;
  domainPrefix: string;
  /** How often each host's machines are read for usage (one `virsh domstats` per host). */
  metricsIntervalSeconds: number;
  /** Caps every plan's monthly traffic allowance (small test setups); undefined: the plan's. */
  trafficCapMb: number | undefined;
};

/**
 * Demo mode gives balance away (`POST /demo/topups/{ref}/pay`) and may let anyone move the clock, so real
 * machines are refused there unless ALLOW_DEMO_LIBVIRT=1 says this is a test machine only its owner can
 * reach. The switch means nothing in production and is refused there. Returns whether it is in effect.
 */
function checkDemoLibvirt(
  mode: "demo" | "production",
  provisioner: "simulated" | "libvirt",
  allowed: boolean,
) {
  if (mode === "production" && allowed) {
    throw new ConfigError(["ALLOW_DEMO_LIBVIRT: only for demo mode; unset it in production"]);
  }
  if (mode === "demo" && provisioner === "libvirt" && !allowed) {
    throw new ConfigError([
      "PROVISIONER: libvirt builds real machines, and demo mode hands out balance for simulated payments: " +
        "run in production mode (SESSION_SECRET, ENCRYPTION_KEY and the x402 settings), or set " +
        "ALLOW_DEMO_LIBVIRT=1 on a test machine that only you can reach",
    ]);
  }
  return mode === "demo" && provisioner === "libvirt";
}

export const SERVER_SETTINGS = envSlice({
  name: "servers",
  shape: {
    PROVISION_DELAY_SECONDS: z.coerce.number().int().min(0).max(3600).default(15),
    SERVER_GRACE_DAYS: z.coerce.number().int().min(0).max(90).default(7),
    SNAPSHOTS_PER_SERVER: z.coerce.number().int().min(1).max(50).default(3),
    EXPIRED_SERVER_RETENTION_DAYS: z.coerce.number().int().min(0).max(365).default(14),
    PROVISIONER: z.enum(["simulated", "libvirt"]).default("simulated"),
    ALLOW_DEMO_LIBVIRT: z.enum(["0", "1"]).default("0"),
    HYPERVISORS: optionalText,
    GUEST_IMAGES_DIR: z.string().min(1).default("/var/lib/vps/images"),
    SERVER_DISKS_DIR: z.string().min(1).default("/var/lib/vps/servers"),
    SERVER_MEMORY_CAP_MB: z.coerce.number().int().min(128).optional(),
    SERVER_DISK_CAP_GB: z.coerce.number().int().min(1).optional(),
    SSH_FORWARD_PORT_BASE: z.coerce.number().int().min(1024).max(60000).default(22000),
    SSH_FORWARD_PORT_COUNT: z.coerce.number().int().min(1).max(64512).default(1000),
    SERVER_BOOT_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
    BUILD_HOST_WAIT_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
    SERVER_STOP_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
    LIBVIRT_DOMAIN_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,15}$/, "lower-case letters, digits and hyphens, starting with a letter")
      .default("vps-"),
    METRICS_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
    TRAFFIC_ALLOWANCE_CAP_MB: z.coerce.number().int().min(1).optional(),
  },
  derive(values, { mode }): ServerSettings {
    const hypervisors = parseHypervisors(values.HYPERVISORS);
    if (hypervisors.some((host) => typeof host === "string")) throw new ConfigError(hypervisors as string[]);
    const hosts = hypervisors as HypervisorHost[];
    const unknownLocations = hosts.filter((host) => !LOCATIONS.some((l) => l.id === host.location));
    if (unknownLocations.length > 0) {
      throw new ConfigError(
        unknownLocations.map((host) => `HYPERVISORS: ${host.name} has unknown location ${host.location}`),
      );
    }
    if (values.PROVISIONER === "libvirt" && hosts.length === 0) {
      throw new ConfigError(["HYPERVISORS: required when PROVISIONER=libvirt"]);
    }
    const demoLibvirt = checkDemoLibvirt(mode, values.PROVISIONER, values.ALLOW_DEMO_LIBVIRT === "1");
    const lastForwardedPort = values.SSH_FORWARD_PORT_BASE + values.SSH_FORWARD_PORT_COUNT - 1;
    if (lastForwardedPort > 65535) {
      throw new ConfigError([
        `SSH_FORWARD_PORT_COUNT: the range SSH_FORWARD_PORT_BASE..${lastForwardedPort} passes port 65535`,
      ]);
    }
    return {
      provisionDelaySeconds: values.PROVISION_DELAY_SECONDS,
      graceDays: values.SERVER_GRACE_DAYS,
      snapshotsPerServer: values.SNAPSHOTS_PER_SERVER,
      retentionDays: values.EXPIRED_SERVER_RETENTION_DAYS,
      provisioner: values.PROVISIONER,
      demoLibvirt,
      hypervisors: hosts,
      guestImagesDir: path.resolve(values.GUEST_IMAGES_DIR),
      serverDisksDir: path.resolve(values.SERVER_DISKS_DIR),
      memoryCapMb: values.SERVER_MEMORY_CAP_MB,
      diskCapGb: values.SERVER_DISK_CAP_GB,
      sshForwardPortBase: values.SSH_FORWARD_PORT_BASE,
      sshForwardPortCount: values.SSH_FORWARD_PORT_COUNT,
      bootTimeoutSeconds: values.SERVER_BOOT_TIMEOUT_SECONDS,
      buildHostWaitSeconds: values.BUILD_HOST_WAIT_SECONDS,
      stopTimeoutSeconds: values.SERVER_STOP_TIMEOUT_SECONDS,
      domainPrefix: values.LIBVIRT_DOMAIN_PREFIX,
      metricsIntervalSeconds: values.METRICS_INTERVAL_SECONDS,
      trafficCapMb: values.TRAFFIC_ALLOWANCE_CAP_MB,
    };
  },
});

/** The process's server settings. */
export const serverSettings = (): ServerSettings => SERVER_SETTINGS.read();
