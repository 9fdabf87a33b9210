/** The libvirt domain XML of one server. Values are escaped; nothing here reaches a shell. */
import { IPV6_FILTER } from "./nwfilter";

const xmlText = (value: string | number) => String(value).replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

export type DomainSpec = {
  name: string;
  /**
   * The UUID of the domain this definition replaces: libvirt refuses a new definition of an existing name
   * under another UUID, and one left out is generated afresh. Absent for a domain defined for the first time.
   */
  uuid?: string;
  memoryMb: number;
  vcpus: number;
  /** kvm where the host has vmx/svm, qemu (TCG software emulation) otherwise. */
  virtType: "kvm" | "qemu";
  pool: string;
  diskVolume: string;
  seedVolume: string;
  /**
   * Direct kernel boot (images built by guest:build, and the rescue system); absent: the image's own boot
   * loader. `cmdline` replaces the usual one (root on the disk).
   */
  kernel?: { kernel: string; initrd: string; cmdline?: string };
  /** User-mode networking with only this port of 127.0.0.1 forwarded to the guest's SSH (no bridge). */
  sshForwardPort: number;
  mac: string;
  /**
   * Bridged networking: the guest's card on this host bridge, with its public address from the seed, and its
   * routed /64 (network address) and link-local address where the host hands out IPv6.
   */
  bridge?: { name: string; address: string; ipv6?: { network: string; linkLocal: string } };
};

/** The card's layer-2 filter: clean-traffic bound to its IPv4, or with IPv6 the filter of nwfilter.ts. */
function filterRef(bridge: NonNullable<DomainSpec["bridge"]>): string {
  const parameter = (name: string, value: string) => `<parameter name='${name}' value='${xmlText(value)}'/>`;
  if (!bridge.ipv6) return `<filterref filter='clean-traffic'>${parameter("IP", bridge.address)}</filterref>`;
  return (
    `<filterref filter='${IPV6_FILTER}'>${parameter("IP", bridge.address)}` +
    `${parameter("IPV6_NET", bridge.ipv6.network)}${parameter("IPV6_LL", bridge.ipv6.linkLocal)}</filterref>`
  );
}

/**
 * A balloon device for its statistics only (it is never inflated): the guest's driver reports its memory in use
 * every few seconds, which `virsh domstats --balloon` reads for the usage graphs.
 */
export const BALLOON = "<memballoon model='virtio'><stats period='10'/></memballoon>";

export function domainXml(spec: DomainSpec): string {
  // no_timer_check: on a host short of CPU (TCG, many guests booting) the kernel's IO-APIC timer check
  // sees too few ticks and panics ("IO-APIC + timer doesn't work!"); the timer itself works.
  const kernel = spec.kernel
    ? `<kernel>${xmlText(spec.kernel.kernel)}</kernel><initrd>${xmlText(spec.kernel.initrd)}</initrd>` +
      `<cmdline>${xmlText(spec.kernel.cmdline ?? "root=/dev/vda rw console=ttyS0 clocksource=hpet no_timer_check")}</cmdline>`
    : "";
  // Under TCG a smaller translation cache keeps QEMU's resident memory near half of the default.
  const tcg = spec.virtType === "qemu" ? "<tcg><tb-cache unit='MiB'>128</tb-cache></tcg>" : "";
  const cpu = spec.virtType === "kvm" ? "<cpu mode='host-passthrough'/>" : "";
  // libvirt has no element for a restricted user-mode network: pass it to QEMU, with an explicit PCI slot
  // so the card does not take one libvirt assigns to its own devices.
  const netdev = `user,id=vpsnet0,restrict=on,hostfwd=tcp:127.0.0.1:${spec.sshForwardPort}-:22`;
  const device = `virtio-net-pci,netdev=vpsnet0,mac=${spec.mac},addr=0x1e`;
  const userNetwork = `
  <qemu:commandline>
    <qemu:arg value='-netdev'/><qemu:arg value='${xmlText(netdev)}'/>
    <qemu:arg value='-device'/><qemu:arg value='${xmlText(device)}'/>
  </qemu:commandline>`;
  // On a shared bridge the card may send only from its own MAC and addresses, with ARP telling the truth about
  // them, and nothing but IPv4, ARP and (where it has a /64) IPv6 without router advertisements: a tenant cannot
  // take a neighbour's or the gateway's address.
  const bridged = spec.bridge
    ? `<interface type='bridge'><source bridge='${xmlText(spec.bridge.name)}'/><mac address='${xmlText(spec.mac)}'/>` +
      `<model type='virtio'/>${filterRef(spec.bridge)}</interface>`
    : "";
  return `<domain type='${spec.virtType}' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>${xmlText(spec.name)}</name>${spec.uuid ? `<uuid>${xmlText(spec.uuid)}</uuid>` : ""}
  <memory unit='MiB'>${spec.memoryMb}</memory>
  <vcpu>${spec.vcpus}</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type>${kernel}<boot dev='hd'/></os>
  <features><acpi/><apic/>${tcg}</features>
  ${cpu}
  <clock offset='utc'><timer name='hpet' present='yes'/></clock>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <disk type='volume' device='disk'>
      <driver name='qemu' type='qcow2' discard='unmap'/>
      <source pool='${xmlText(spec.pool)}' volume='${xmlText(spec.diskVolume)}'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <disk type='volume' device='cdrom'>
      <driver name='qemu' type='raw'/>
      <source pool='${xmlText(spec.pool)}' volume='${xmlText(spec.seedVolume)}'/>
      <target dev='hdc' bus='ide'/>
      <readonly/>
    </disk>
    <serial type='pty'><log file='/var/log/libvirt/qemu/${xmlText(spec.name)}-console.log' append='off'/></serial>
    <console type='pty'/>
    <channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>
    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
    ${BALLOON}
    ${bridged}
  </devices>${spec.bridge ? "" : userNetwork}
</domain>
`;
}

/** A qcow2 overlay volume of `sizeGb` on a base image given by its path on the host. */
export function overlayVolumeXml(name: string, sizeGb: number, basePath: string): string {
  return `<volume>
  <name>${xmlText(name)}</name>
  <capacity unit='GiB'>${sizeGb}</capacity>
  <target><format type='qcow2'/></target>
  <backingStore><path>${xmlText(basePath)}</path><format type='qcow2'/></backingStore>
</volume>
`;
}
