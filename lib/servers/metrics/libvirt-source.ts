/** Usage of real machines: one `virsh domstats` per host, and libvirt's interface bandwidth to slow a card. */
import type { ServerSettings } from "../config";
import { macFor } from "../libvirt/network";
import { virsh } from "../libvirt/virsh";
import { type DomainReading, parseDomstats } from "./domstats";
import type { SampledServer, UsageSource } from "./source";

/** Only the stat groups used: the state, total CPU, the balloon's memory figures, cards and disks. */
export const DOMSTATS_ARGS = ["domstats", "--state", "--cpu-total", "--balloon", "--interface", "--block"];

/** A burst of 64 KiB: about 50 ms at 10 Mbit/s, enough for a TCP window to open without a long spike. */
const BURST_KIB = 64;

/**
 * `virsh domiftune` arguments that slow the card with MAC `mac` to `mbps` both ways (libvirt takes kilobytes
 * per second: 1 Mbit/s is 125), or free it (0 clears a direction). `scope` is `--live` for the running
 * machine or `--config` for its stored definition.
 */
export function domiftuneArgs(
  domain: string,
  mac: string,
  mbps: number | null,
  scope: "--live" | "--config",
) {
  const setting = mbps === null ? "0" : `${mbps * 125},${mbps * 125},${BURST_KIB}`;
  return ["domiftune", domain, mac, "--inbound", setting, "--outbound", setting, scope];
}

export class LibvirtUsageSource implements UsageSource {
  readonly demo = false;

  constructor(private readonly settings: Pick<ServerSettings, "hypervisors" | "domainPrefix">) {}

  hosts(): string[] {
    return this.settings.hypervisors.map((host) => host.name);
  }

  onHost(server: SampledServer, host: string): boolean {
    return server.hypervisor === host;
  }

  private host(name: string) {
    const host = this.settings.hypervisors.find((h) => h.name === name);
    if (!host) throw new Error(`no hypervisor named ${name}`);
    return host;
  }

  async read(host: string): Promise<Map<number, DomainReading>> {
    const output = await virsh(this.host(host).uri, DOMSTATS_ARGS);
    const prefix = this.settings.domainPrefix;
    const readings = new Map<number, DomainReading>();
    for (const [name, reading] of parseDomstats(output)) {
      if (!name.startsWith(prefix)) continue;
      const id = Number(name.slice(prefix.length));
      if (Number.isSafeInteger(id) && id > 0) readings.set(id, reading);
    }
    return readings;
  }

  /**
   * On the running machine first, then in its stored definition so a restart keeps it: a host whose kernel
   * cannot shape (libvirt's tc needs sch_htb, sch_sfq and act_police) refuses the live change, and then the
   * definition is left alone, since a stored limit the host cannot apply would stop the machine from starting.
   * A stopped machine is only ever freed in its definition, never slowed there (for the same reason): it is
   * slowed when it runs again. Cards on user-mode networking (hosts without a bridge) are not libvirt's.
   */
  async setSlowdown(host: string, server: SampledServer, running: boolean, mbps: number | null) {
    const target = this.host(host);
    if (!target.network) return false;
    const domain = `${this.settings.domainPrefix}${server.id}`;
    const mac = macFor(server.id);
    if (running) await virsh(target.uri, domiftuneArgs(domain, mac, mbps, "--live"));
    else if (mbps !== null) return false;
    await virsh(target.uri, domiftuneArgs(domain, mac, mbps, "--config"));
    return true;
  }
}
