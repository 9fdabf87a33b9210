import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { HypervisorHost, ServerSettings } from "../config";
import type { ConsoleHandlers, ConsoleStream } from "../console/stream";
import { CustomerFacingError } from "../failure-reasons";
import { domstatsBlocks } from "../metrics/domstats";
import { linkLocalOf, parseNetwork, serverIpv6Address } from "../network/addresses";
import type { Counter } from "../network/compile";
import { tableName } from "../network/compile";
import type { ServerRow } from "../present";
import {
  type BuildSpec,
  type Built,
  DISK_COPY_TIMEOUT_MS,
  GuestAgentUnavailableError,
  HostUnreachableError,
  PasswordUnconfirmedError,
  type PowerAction,
  type PowerState,
  type Provisioner,
  type RescueSpec,
  type ResizeOptions,
  type ReviveSpec,
  type SnapshotTaken,
} from "../provisioner";
import {
  generateHostKey,
  metaData,
  sha512Crypt,
  USER_NETWORK_CONFIG,
  USER_NETWORK_MAC,
  userData,
} from "./cloud-init";
import { openSerialConsole } from "./console";
import { copyDiskAtRest, copyRunningDisk, volumeSize } from "./disk-copy";
import { domainXml, overlayVolumeXml } from "./domain";
import {
  applyFirewall,
  type FirewallState,
  type HostPlace,
  listTables,
  readTable,
  removeFirewall,
} from "./host-firewall";
import {
  type HostInventory,
  INVENTORY_COMMANDS,
  parseDomains,
  parseNodeinfo,
  parsePoolInfo,
} from "./inventory";
import { FORWARDED_SSH_ADDRESS, macFor, networkConfig } from "./network";
import { IPV6_FILTER_XML } from "./nwfilter";
import { withOwnerUserData } from "./user-data";
import { run, VirshError, virsh, virshScript, virshShellArg } from "./virsh";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** virsh's volume sizes are in bytes; servers' disks in GiB. */
const GIB = 1024 ** 3;

/** `virsh domstate --reason` of a machine QEMU paused because a disk write failed (ENOSPC: the pool is full). */
const PAUSED_BY_STORAGE = /^paused \(I\/O error\)/;

/** "shut off", "running", "paused", ... from `virsh domstate`, as the API's two power states. */
export function powerStateOf(domstate: string): PowerState {
  return ["running", "paused", "in shutdown", "blocked"].includes(domstate.trim()) ? "running" : "stopped";
}

const isMissing = (error: unknown) =>
  error instanceof VirshError &&
  /failed to get domain|Domain not found|no domain with matching/i.test(error.stderr);

const isMissingPool = (error: unknown) =>
  error instanceof VirshError &&
  /failed to get pool|Storage pool not found|no storage pool/i.test(error.stderr);

/** One virsh read of the operator's host view may take this long before the host counts as unreachable. */
const INVENTORY_TIMEOUT_MS = 15_000;

/** virsh's words for a machine that cannot take guest-agent commands: not running, or no agent answering. */
export function isAgentUnavailable(stderr: string): boolean {
  return /guest agent|agent is not|domain is not running|failed to get domain|Domain not found/i.test(stderr);
}

/** virsh's words for a connection to the host that was never made: nothing was asked of the host. */
export function isHostUnreachable(stderr: string): boolean {
  return /failed to connect to the hypervisor|no valid connection/i.test(stderr);
}

export type PasswordOutcome = "set" | "agent_unavailable" | "host_unreachable" | "unconfirmed";

/**
 * What a `set-user-password` run did, from virsh's output: set once virsh confirmed it (whatever it printed
 * after), unchanged when the host or the guest agent refused before acting, and unconfirmed otherwise (cut off
 * at the timeout, or an error that may have come after the agent acted).
 */
export function passwordOutcome(stdout: string, stderr: string, timedOut: boolean): PasswordOutcome {
  if (/^Password set successfully for /m.test(stdout)) return "set";
  if (timedOut) return "unconfirmed";
  if (isHostUnreachable(stderr)) return "host_unreachable";
  if (isAgentUnavailable(stderr)) return "agent_unavailable";
  return "unconfirmed";
}

/** Whether a host has hardware virtualisation: the CPU flags, never the mere presence of /dev/kvm. */
export function hasHardwareVirt(cpuinfoOrCapabilities: string): boolean {
  return /\b(vmx|svm)\b/.test(cpuinfoOrCapabilities);
}

/** How much of a guest's answer the readiness probe reads: an SSH identification line fits in 255 bytes. */
export const SSH_PROBE_MAX_BYTES = 512;

/**
 * Waits for an SSH server's identification line ("SSH-2.0-...") at host:port. A guest decides what its port
 * 22 sends: the probe reads at most SSH_PROBE_MAX_BYTES and gives up after `deadlineMs` in all, however the
 * bytes trickle in.
 */
export function sshAnswers(host: string, port: number, deadlineMs = 3_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let received = "";
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      resolve(ok);
    };
    const deadline = setTimeout(() => done(false), deadlineMs);
    socket.on("data", (chunk: Buffer) => {
      received += chunk.subarray(0, SSH_PROBE_MAX_BYTES - received.length).toString("latin1");
      if (received.includes("SSH-")) done(true);
      else if (received.length >= SSH_PROBE_MAX_BYTES) done(false);
    });
    socket.on("error", () => done(false));
    socket.on("close", () => done(received.includes("SSH-")));
  });
}

/** The rescue system the operator installs beside the images: a kernel and an initramfs (see guest:build-rescue). */
export const RESCUE_FILES = { kernel: "rescue.vmlinuz", initrd: "rescue.initrd" } as const;

/** The rescue system's kernel command line: its console on the serial port, the disk left alone. */
const RESCUE_CMDLINE = "console=ttyS0 clocksource=hpet no_timer_check vps.rescue=1";

/** The login a seed carries (and a new system's user data); the host key is generated for each seed. */
type SeedLogin = { hostname: string; rootPassword: string; sshKeys: string[]; userData?: string };

/** libvirt's virDomainState values `virsh domstats --state` prints as `state.state`. */
const DOMAIN_RUNNING = "1";
const DOMAIN_PAUSED = "3";

/**
 * Real machines through libvirt: one connection URI per hypervisor host, `virsh` with argument arrays.
 * Each server is a domain `<prefix><id>` with a qcow2 overlay on `GUEST_IMAGES_DIR/<os>.qcow2` and a
 * cloud-init NoCloud seed, both volumes of the storage pool `<prefix>disks` (so they work on remote hosts).
 * Its snapshots are volumes of the same pool (`<prefix><id>-snap-<snapshot id>.qcow2`, see disk-copy.ts), and
 * in rescue mode it boots the rescue system with a seed of its own (`<prefix><id>-rescue-seed.iso`).
 */
export class LibvirtProvisioner implements Provisioner {
  readonly name = "libvirt";
  readonly simulated = false;
  private readonly pools = new Map<string, Promise<void>>();
  private readonly virtTypes = new Map<string, Promise<"kvm" | "qemu">>();
  private readonly ipv6Filters = new Map<string, Promise<void>>();

  constructor(private readonly settings: ServerSettings) {}

  get pool(): string {
    return `${this.settings.domainPrefix}disks`;
  }

  domainName(server: Pick<ServerRow, "id">): string {
    return `${this.settings.domainPrefix}${server.id}`;
  }

  diskVolume(server: Pick<ServerRow, "id">): string {
    return `${this.domainName(server)}.qcow2`;
  }

  seedVolume(server: Pick<ServerRow, "id">): string {
    return `${this.domainName(server)}-seed.iso`;
  }

  rescueSeedVolume(server: Pick<ServerRow, "id">): string {
    return `${this.domainName(server)}-rescue-seed.iso`;
  }

  snapshotVolume(server: Pick<ServerRow, "id">, snapshotId: number): string {
    return `${this.domainName(server)}-snap-${snapshotId}.qcow2`;
  }

  /** 22 on a bridged host (the guest has its own address), else the port reserved for it on 127.0.0.1. */
  sshPort(server: Pick<ServerRow, "id" | "hypervisor" | "sshPort">): number {
    const bridged = this.settings.hypervisors.find((h) => h.name === server.hypervisor)?.network;
    if (bridged) return 22;
    if (server.sshPort === null) throw new Error(`server ${server.id} has no forwarded SSH port reserved`);
    return server.sshPort;
  }

  imageAvailable(os: string): boolean {
    return existsSync(this.imagePath(os));
  }

  private imagePath(os: string): string {
    return path.join(this.settings.guestImagesDir, `${os}.qcow2`);
  }

  private host(server: ServerRow): HypervisorHost {
    const host = this.settings.hypervisors.find((h) => h.name === server.hypervisor);
    if (!host) throw new Error(`server ${server.id} has no configured hypervisor (${server.hypervisor})`);
    return host;
  }

  private virtType(host: HypervisorHost): Promise<"kvm" | "qemu"> {
    let known = this.virtTypes.get(host.uri);
    if (!known) {
      known = (async () => {
        const local = /^qemu:\/\/\/system/.test(host.uri);
        const flags = local ? readFileSync("/proc/cpuinfo", "utf8") : await virsh(host.uri, ["capabilities"]);
        return hasHardwareVirt(flags) ? "kvm" : "qemu";
      })();
      this.virtTypes.set(host.uri, known);
      known.catch(() => this.virtTypes.delete(host.uri));
    }
    return known;
  }

  private async definePool(host: HypervisorHost, pool: string, target: string): Promise<void> {
    const info = await virsh(host.uri, ["pool-info", pool]).catch(() => undefined);
    if (info === undefined) {
      await virsh(host.uri, ["pool-define-as", pool, "dir", "--target", target]);
      await virsh(host.uri, ["pool-build", pool]);
      await virsh(host.uri, ["pool-autostart", pool]);
    }
    if (!/State:\s+running/.test(info ?? "")) await virsh(host.uri, ["pool-start", pool]);
  }

  /** The host's storage pool for overlays and seeds, defined and started on first use. */
  private ensurePool(host: HypervisorHost): Promise<void> {
    let ready = this.pools.get(host.uri);
    if (!ready) {
      ready = this.definePool(host, this.pool, this.settings.serverDisksDir);
      this.pools.set(host.uri, ready);
      ready.catch(() => this.pools.delete(host.uri));
    }
    return ready;
  }

  /**
   * The layer-2 filter of guests with IPv6 (nwfilter.ts), defined on the host once per process: defined again
   * it is updated in place (fixed UUIDs), so a newer version reaches hosts that had an older one.
   */
  private ensureIpv6Filter(host: HypervisorHost): Promise<void> {
    let ready = this.ipv6Filters.get(host.uri);
    if (!ready) {
      ready = (async () => {
        for (const xml of IPV6_FILTER_XML) {
          await this.withXmlFile(xml, (file) => virsh(host.uri, ["nwfilter-define", file]));
        }
      })();
      this.ipv6Filters.set(host.uri, ready);
      ready.catch(() => this.ipv6Filters.delete(host.uri));
    }
    return ready;
  }

  /** Writes XML to a private temporary file for virsh, which reads it (locally, also for remote hosts). */
  private async withXmlFile<T>(xml: string, use: (file: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(tmpdir(), "vps-xml-"));
    try {
      const file = path.join(dir, "definition.xml");
      await writeFile(file, xml, { mode: 0o600 });
      return await use(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async deleteVolume(host: HypervisorHost, volume: string): Promise<void> {
    await virsh(host.uri, ["vol-delete", "--pool", this.pool, volume]).catch(() => undefined);
  }

  private async removeDomain(host: HypervisorHost, name: string): Promise<void> {
    await virsh(host.uri, ["destroy", name]).catch(() => undefined);
    await virsh(host.uri, ["undefine", name]).catch(() => undefined);
  }

  /** The kernel a server boots directly: the rescue system in rescue mode, else its image's, if there is one. */
  private kernelOf(server: ServerRow): { kernel: string; initrd: string; cmdline?: string } | undefined {
    const file = (name: string) => path.join(this.settings.guestImagesDir, name);
    if (server.rescueState === "active") {
      return {
        kernel: file(RESCUE_FILES.kernel),
        initrd: file(RESCUE_FILES.initrd),
        cmdline: RESCUE_CMDLINE,
      };
    }
    const kernel = file(`${server.os}.vmlinuz`);
    const initrd = file(`${server.os}.initrd`);
    return existsSync(kernel) && existsSync(initrd) ? { kernel, initrd } : undefined;
  }

  /**
   * The domain definition of a server whose volumes exist, as the server row says it should be (its OS, rescue
   * mode or not): written before every start, and to redefine a vanished domain.
   */
  private async define(server: ServerRow, host: HypervisorHost): Promise<void> {
    const rescue = server.rescueState === "active";
    const name = this.domainName(server);
    const ipv6 = this.ipv6Of(server, host);
    if (ipv6) await this.ensureIpv6Filter(host);
    const xml = domainXml({
      name,
      uuid: await this.existingUuid(host, name),
      memoryMb: server.memoryMb ?? 1024,
      vcpus: server.vcpus ?? 1,
      virtType: await this.virtType(host),
      pool: this.pool,
      diskVolume: this.diskVolume(server),
      seedVolume: rescue ? this.rescueSeedVolume(server) : this.seedVolume(server),
      kernel: this.kernelOf(server),
      sshForwardPort: this.sshPort(server),
      mac: host.network ? macFor(server.id) : USER_NETWORK_MAC,
      bridge: host.network
        ? {
            name: host.network.bridge,
            address: this.reservedAddress(server, host),
            ...(ipv6 ? { ipv6: { network: ipv6.network, linkLocal: linkLocalOf(macFor(server.id)) } } : {}),
          }
        : undefined,
    });
    await this.withXmlFile(xml, (file) => virsh(host.uri, ["define", file]));
  }

  /** The UUID of the defined domain `name`, which a new definition of it must keep; undefined when there is none. */
  private async existingUuid(host: HypervisorHost, name: string): Promise<string | undefined> {
    try {
      return (await virsh(host.uri, ["domuuid", name])).trim() || undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async create(spec: BuildSpec): Promise<Built> {
    const { server } = spec;
    const host = this.host(server);
    if (!this.imageAvailable(server.os)) throw new Error(`no image for ${server.os}`);
    await this.ensurePool(host);
    const name = this.domainName(server);
    // A retry starts from nothing: whatever an earlier attempt left is removed first.
    await this.removeDomain(host, name);
    await this.deleteVolume(host, this.diskVolume(server));
    await this.deleteVolume(host, this.seedVolume(server));

    // The overlay names its base by path on the host, so base images need no pool of their own.
    await this.withXmlFile(
      overlayVolumeXml(this.diskVolume(server), server.diskGb ?? 10, this.imagePath(server.os)),
      (file) => virsh(host.uri, ["vol-create", "--pool", this.pool, file]),
    );

    const fingerprint = await this.uploadSeed(server, host, this.seedVolume(server), {
      hostname: server.hostname,
      rootPassword: spec.rootPassword,
      sshKeys: spec.sshKeys,
      userData: spec.userData,
    });
    await this.define(server, host);
    await virsh(host.uri, ["start", name]);
    const ip = host.network ? this.reservedAddress(server, host) : FORWARDED_SSH_ADDRESS;
    return { ip, sshPort: this.sshPort(server), hostKeyFingerprint: fingerprint };
  }

  /**
   * Writes a cloud-init seed (hostname, root's password hash and keys, a new host key, the network) into the
   * new volume `volume`; returns the host key's fingerprint. The files live in a private temporary folder
   * only while they are packed and uploaded.
   */
  private async uploadSeed(server: ServerRow, host: HypervisorHost, volume: string, login: SeedLogin) {
    const hostKey = generateHostKey();
    const dir = await mkdtemp(path.join(tmpdir(), "vps-seed-"));
    try {
      const files = {
        user: path.join(dir, "user-data"),
        meta: path.join(dir, "meta-data"),
        network: path.join(dir, "network-config"),
        iso: path.join(dir, "seed.iso"),
      };
      const passwordHash = await sha512Crypt(login.rootPassword);
      const seed = userData({ passwordHash, sshKeys: login.sshKeys, hostKey });
      await writeFile(files.user, withOwnerUserData(seed, login.userData), { mode: 0o600 });
      await writeFile(files.meta, metaData(`${this.domainName(server)}-${Date.now()}`, login.hostname), {
        mode: 0o600,
      });
      await writeFile(files.network, this.networkConfigOf(server, host), { mode: 0o600 });
      await run("cloud-localds", [`--network-config=${files.network}`, files.iso, files.user, files.meta]);
      const size = (await stat(files.iso)).size;
      await virsh(host.uri, [
        "vol-create-as",
        "--pool",
        this.pool,
        "--name",
        volume,
        "--capacity",
        String(size),
        "--format",
        "raw",
      ]);
      await virsh(host.uri, ["vol-upload", "--pool", this.pool, volume, files.iso]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return hostKey.fingerprint;
  }

  private reservedAddress(server: ServerRow, host: HypervisorHost): string {
    if (!server.ip) throw new Error(`server ${server.id} has no reserved address on ${host.name}`);
    return server.ip;
  }

  /** The server's /64 where its host hands out IPv6 and it has one: the network's address, its `::1`. */
  private ipv6Of(server: ServerRow, host: HypervisorHost) {
    if (!host.network?.ipv6 || !server.ipv6Prefix) return undefined;
    const network = parseNetwork(server.ipv6Prefix);
    if (!network) throw new Error(`server ${server.id} has an invalid IPv6 prefix ${server.ipv6Prefix}`);
    return {
      network: network.address,
      address: serverIpv6Address(server.ipv6Prefix),
      gateway: host.network.ipv6.gateway,
    };
  }

  /** The seed's network-config: the reserved public addresses on a bridged host, user-mode addressing else. */
  private networkConfigOf(server: ServerRow, host: HypervisorHost): string {
    if (!host.network) return USER_NETWORK_CONFIG;
    const { prefix, gateway, nameservers } = host.network;
    const address = this.reservedAddress(server, host);
    const ipv6 = this.ipv6Of(server, host);
    return networkConfig({
      mac: macFor(server.id),
      address,
      prefix,
      gateway,
      nameservers,
      ...(ipv6 ? { ipv6: { address: ipv6.address, gateway: ipv6.gateway } } : {}),
    });
  }

  /** Where the server sits on its bridged host, for its firewall; undefined on a host without a bridge. */
  private placeOf(server: ServerRow): HostPlace | undefined {
    const host = this.host(server);
    if (!host.network) return undefined;
    const mac = macFor(server.id);
    const ipv6Prefix = this.ipv6Of(server, host) ? server.ipv6Prefix : null;
    return {
      uri: host.uri,
      network: host.network,
      domain: this.domainName(server),
      mac,
      ipv4: server.ip,
      ipv6Prefix,
      linkLocal: ipv6Prefix ? linkLocalOf(mac) : null,
    };
  }

  firewallAvailable(server: ServerRow): boolean {
    return Boolean(this.settings.hypervisors.find((h) => h.name === server.hypervisor)?.network);
  }

  async applyNetwork(server: ServerRow, state: FirewallState): Promise<boolean> {
    const place = this.placeOf(server);
    if (!place || (!place.ipv4 && !place.ipv6Prefix)) return false;
    await applyFirewall(place, state);
    return true;
  }

  async removeNetwork(server: ServerRow): Promise<void> {
    const place = this.placeOf(server);
    if (place) await removeFirewall(place);
  }

  async firewallCounters(server: ServerRow): Promise<Map<string, Counter> | undefined> {
    const place = this.placeOf(server);
    if (!place) return undefined;
    return (await readTable(place))?.counters;
  }

  async firewallTables(hypervisor: string): Promise<Set<number> | undefined> {
    const host = this.settings.hypervisors.find((h) => h.name === hypervisor);
    if (!host?.network) return undefined;
    const prefix = tableName(`${this.settings.domainPrefix}0`).slice(0, -1);
    const ids = new Set<number>();
    for (const name of await listTables(host.uri)) {
      if (!name.startsWith(prefix)) continue;
      const id = Number(name.slice(prefix.length));
      if (Number.isSafeInteger(id)) ids.add(id);
    }
    return ids;
  }

  async ready(server: ServerRow): Promise<boolean> {
    if (await sshAnswers(server.ip ?? FORWARDED_SSH_ADDRESS, server.sshPort ?? this.sshPort(server)))
      return true;
    // QEMU pauses a machine whose disk write found the pool full: it would never answer, so the attempt
    // fails now, with the reason, rather than at the boot timeout.
    const state = await virsh(this.host(server).uri, ["domstate", this.domainName(server), "--reason"]).catch(
      () => "",
    );
    if (PAUSED_BY_STORAGE.test(state)) throw new CustomerFacingError("the host's storage is full");
    return false;
  }

  async state(server: ServerRow): Promise<PowerState | "missing"> {
    try {
      return powerStateOf(await virsh(this.host(server).uri, ["domstate", this.domainName(server)]));
    } catch (error) {
      if (isMissing(error)) return "missing";
      throw error;
    }
  }

  async power(server: ServerRow, action: PowerAction): Promise<PowerState> {
    const host = this.host(server);
    const name = this.domainName(server);
    let current = await this.state(server);
    if (current === "missing") {
      // The domain vanished from its host (undefined by hand, host reinstalled): define it again on its disk.
      await this.define(server, host);
      current = "stopped";
    }
    if (action === "start" || (action === "reboot" && current === "stopped")) {
      if (current === "stopped") {
        // The definition follows the server row (its OS after a restore, rescue mode or not).
        await this.define(server, host);
        await virsh(host.uri, ["start", name]);
      }
    } else if (action === "reboot") {
      // ACPI reboot asks the guest; a guest that ignores it is reset.
      await virsh(host.uri, ["reboot", name]).catch(() => virsh(host.uri, ["reset", name]));
    } else if (current === "running") {
      await virsh(host.uri, ["shutdown", name]).catch(() => undefined);
      const deadline = Date.now() + this.settings.stopTimeoutSeconds * 1000;
      while (Date.now() < deadline && (await this.state(server)) === "running") await sleep(500);
      // The guest did not power off in time: force it off.
      if ((await this.state(server)) === "running") await virsh(host.uri, ["destroy", name]);
    }
    const after = await this.state(server);
    return after === "missing" ? "stopped" : after;
  }

  /**
   * Through the QEMU guest agent, as a SHA-512 crypt hash (`--encrypted`): the clear text never leaves this
   * process but to openssl's stdin, and the hash reaches virsh on its stdin, never in an argument list (and
   * never in virsh's history: see virshScript). Only virsh's confirmation counts as set.
   */
  async setRootPassword(server: ServerRow, password: string): Promise<void> {
    const host = this.host(server);
    const hash = await sha512Crypt(password);
    const command = [
      "set-user-password",
      "--domain",
      virshShellArg(this.domainName(server)),
      "--user",
      "root",
      "--password",
      virshShellArg(hash),
      "--encrypted",
    ].join(" ");
    const { outcome, detail } = await virshScript(host.uri, `${command}\n`, {
      name: "set-user-password",
    }).then(
      (stdout) => ({ outcome: passwordOutcome(stdout, "", false), detail: "no confirmation from virsh" }),
      (error: unknown) => {
        if (!(error instanceof VirshError)) throw error;
        const detail = error.stderr.replace(/^error:\s*/gm, "").trim();
        return { outcome: passwordOutcome(error.stdout, error.stderr, error.timedOut), detail };
      },
    );
    if (outcome === "set") return;
    if (outcome === "agent_unavailable") throw new GuestAgentUnavailableError(detail);
    if (outcome === "host_unreachable") throw new HostUnreachableError(detail);
    throw new PasswordUnconfirmedError(detail);
  }

  async destroy(
    server: ServerRow,
    options: { keepDisk?: boolean } = {},
  ): Promise<{ keptBytes: number | null }> {
    const host = this.host(server);
    await this.ensurePool(host);
    await this.removeDomain(host, this.domainName(server));
    await this.deleteVolume(host, this.rescueSeedVolume(server));
    if (options.keepDisk) {
      const kept = await volumeSize(host.uri, this.pool, this.diskVolume(server)).catch(() => undefined);
      return { keptBytes: kept?.allocation ?? null };
    }
    await this.deleteVolume(host, this.diskVolume(server));
    await this.deleteVolume(host, this.seedVolume(server));
    return { keptBytes: null };
  }

  async snapshot(server: ServerRow, volume: string): Promise<SnapshotTaken> {
    const host = this.host(server);
    await this.ensurePool(host);
    const disk = this.diskVolume(server);
    const running = (await this.state(server)) === "running";
    let consistency: SnapshotTaken["consistency"] = "powered_off";
    if (running) {
      const { capacity } = await volumeSize(host.uri, this.pool, disk);
      consistency = await copyRunningDisk(
        host.uri,
        this.pool,
        this.domainName(server),
        volume,
        capacity,
        DISK_COPY_TIMEOUT_MS,
      );
    } else {
      await copyDiskAtRest(host.uri, this.pool, disk, volume, DISK_COPY_TIMEOUT_MS);
    }
    const { allocation } = await volumeSize(host.uri, this.pool, volume);
    return { sizeBytes: allocation, consistency };
  }

  async restore(server: ServerRow, volume: string): Promise<void> {
    const host = this.host(server);
    await this.ensurePool(host);
    await this.power(server, "stop");
    await copyDiskAtRest(host.uri, this.pool, volume, this.diskVolume(server), DISK_COPY_TIMEOUT_MS);
    await this.define(server, host);
    await virsh(host.uri, ["start", this.domainName(server)]);
  }

  async deleteSnapshot(server: ServerRow, volume: string): Promise<void> {
    const host = this.host(server);
    await this.ensurePool(host);
    await this.deleteVolume(host, volume);
  }

  rescueAvailable(): boolean {
    const file = (name: string) => path.join(this.settings.guestImagesDir, name);
    return existsSync(file(RESCUE_FILES.kernel)) && existsSync(file(RESCUE_FILES.initrd));
  }

  /**
   * Shuts the machine down (forced after the stop timeout), writes the rescue system's seed (hostname
   * `rescue`, the temporary password, the owner's keys, a host key of its own, the server's network) and
   * boots the rescue kernel with the server's disk attached.
   */
  async enterRescue(spec: RescueSpec): Promise<{ hostKeyFingerprint: string }> {
    const { server } = spec;
    const host = this.host(server);
    if (!this.rescueAvailable()) throw new CustomerFacingError("the rescue system is not installed");
    await this.ensurePool(host);
    await this.power({ ...server, rescueState: null }, "stop");
    await this.deleteVolume(host, this.rescueSeedVolume(server));
    const hostKeyFingerprint = await this.uploadSeed(server, host, this.rescueSeedVolume(server), {
      hostname: "rescue",
      rootPassword: spec.rootPassword,
      sshKeys: spec.sshKeys,
    });
    await this.define({ ...server, rescueState: "active" }, host);
    await virsh(host.uri, ["start", this.domainName(server)]);
    return { hostKeyFingerprint };
  }

  /**
   * Shuts the rescue system down (it unmounts what its owner mounted) and defines the machine on the server's
   * own disk; boots it unless `start` is false (a held or lapsed server stays stopped).
   */
  async leaveRescue(server: ServerRow, options: { start?: boolean } = {}): Promise<void> {
    const host = this.host(server);
    await this.ensurePool(host);
    const own = { ...server, rescueState: null };
    await this.power(own, "stop");
    await this.deleteVolume(host, this.rescueSeedVolume(server));
    await this.define(own, host);
    if (options.start ?? true) await virsh(host.uri, ["start", this.domainName(server)]);
  }

  /**
   * Brings a lapsed server back on its kept disk: with its kept seed (same password hash and host key) unless
   * `newSeed` asks for one (or it is gone), then defined and started.
   */
  async revive(spec: ReviveSpec): Promise<Built> {
    const { server } = spec;
    const host = this.host(server);
    await this.ensurePool(host);
    await this.removeDomain(host, this.domainName(server));
    const disk = await volumeSize(host.uri, this.pool, this.diskVolume(server)).catch(() => undefined);
    if (!disk) throw new CustomerFacingError("its kept disk is missing on the host");
    const seedKept = await volumeSize(host.uri, this.pool, this.seedVolume(server)).then(
      () => true,
      () => false,
    );
    let hostKeyFingerprint: string | null = null;
    if (spec.newSeed || !seedKept) {
      await this.deleteVolume(host, this.seedVolume(server));
      hostKeyFingerprint = await this.uploadSeed(server, host, this.seedVolume(server), {
        hostname: server.hostname,
        rootPassword: spec.rootPassword,
        sshKeys: spec.sshKeys,
      });
    }
    await this.define(server, host);
    await virsh(host.uri, ["start", this.domainName(server)]);
    const ip = host.network ? this.reservedAddress(server, host) : FORWARDED_SSH_ADDRESS;
    return { ip, sshPort: this.sshPort(server), hostKeyFingerprint };
  }

  /**
   * A new size needs a new QEMU process (memory and vCPUs are read at its start): the machine is shut down,
   * defined with the row's size and started again. A disk larger than the row's (a growth being undone) is
   * first copied back from the snapshot taken before it grew; a smaller one is grown with `vol-resize`, and the
   * guest's cloud-init (growpart and resizefs, which run on every boot) grows its filesystem to match.
   */
  async resize(server: ServerRow, options: ResizeOptions): Promise<void> {
    const host = this.host(server);
    await this.ensurePool(host);
    await this.power(server, "stop");
    const disk = this.diskVolume(server);
    const wanted = (server.diskGb ?? 0) * GIB;
    let { capacity } = await volumeSize(host.uri, this.pool, disk);
    if (capacity > wanted && options.restoreDiskFrom) {
      await copyDiskAtRest(host.uri, this.pool, options.restoreDiskFrom, disk, DISK_COPY_TIMEOUT_MS);
      ({ capacity } = await volumeSize(host.uri, this.pool, disk));
    }
    if (capacity < wanted) {
      await virsh(host.uri, ["vol-resize", "--pool", this.pool, disk, String(wanted)]);
    }
    await this.define(server, host);
    if (options.start) await virsh(host.uri, ["start", this.domainName(server)]);
  }

  /**
   * Each of our machines on the host, running or stopped, read in one call (over SSH each call is a
   * connection of its own); a machine QEMU paused at a failed disk write is resumed on the way.
   */
  async hostStates(hypervisor: string): Promise<Map<number, PowerState> | undefined> {
    const host = this.settings.hypervisors.find((h) => h.name === hypervisor);
    if (!host) return undefined;
    const states = new Map<number, PowerState>();
    const prefix = this.settings.domainPrefix;
    for (const [name, stats] of domstatsBlocks(await virsh(host.uri, ["domstats", "--state"]))) {
      if (!name.startsWith(prefix)) continue;
      const id = Number(name.slice(prefix.length));
      if (!Number.isSafeInteger(id)) continue;
      const state = stats.get("state.state");
      const resumed = state === DOMAIN_PAUSED && (await this.resumeAfterStorageError(host.uri, name));
      states.set(id, state === DOMAIN_RUNNING || resumed ? "running" : "stopped");
    }
    return states;
  }

  /**
   * A machine QEMU paused because a disk write failed (the pool was full) is resumed: with room again it goes
   * on where it stopped; still without, QEMU pauses it at its next write and the next pass tries again.
   * Machines paused for any other reason are left as they are.
   */
  private async resumeAfterStorageError(uri: string, name: string): Promise<boolean> {
    const state = await virsh(uri, ["domstate", name, "--reason"]).catch(() => "");
    if (!PAUSED_BY_STORAGE.test(state)) return false;
    try {
      await virsh(uri, ["resume", name]);
      console.error(`${name}: paused by a disk write error (is its pool full?); resumed`);
      return true;
    } catch (error) {
      console.error(
        `${name}: paused by a disk write error; resuming failed: ${String(error).split("\n")[0]}`,
      );
      return false;
    }
  }

  async hostInventory(hypervisor: string): Promise<HostInventory | undefined> {
    const host = this.settings.hypervisors.find((h) => h.name === hypervisor);
    if (!host) return undefined;
    const options = { timeoutMs: INVENTORY_TIMEOUT_MS };
    const [node, domains, pool] = await Promise.all([
      virsh(host.uri, [...INVENTORY_COMMANDS.node], options),
      virsh(host.uri, [...INVENTORY_COMMANDS.domains], options),
      // No pool yet (nothing was ever built there) is not an error.
      virsh(host.uri, [...INVENTORY_COMMANDS.pool(this.pool)], options).catch((error: unknown) => {
        if (isMissingPool(error)) return undefined;
        throw error;
      }),
    ]);
    return {
      ...parseNodeinfo(node),
      pool: pool === undefined ? null : parsePoolInfo(pool),
      domains: parseDomains(domains, this.settings.domainPrefix),
    };
  }

  /** `virsh console` over the host's own URI, under a pseudo-terminal (see console.ts). */
  openConsole(server: ServerRow, handlers: ConsoleHandlers): ConsoleStream {
    return openSerialConsole(
      { uri: this.host(server).uri, domain: this.domainName(server), state: () => this.state(server) },
      handlers,
    );
  }
}
