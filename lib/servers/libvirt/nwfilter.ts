/**
 * The layer-2 filter of a guest with IPv6, defined on each host that hands out IPv6: libvirt's clean-traffic
 * (its own MAC, IPv4 and ARP only from its address) with IPv6 let through under the same rule: out only from
 * its /64 or its own link-local address (or, for multicast listener reports, the unspecified address), and
 * never a router advertisement or a redirect, either way. Guests on hosts without IPv6 keep clean-traffic.
 *
 * Filters are matched by UUID: each is defined with a fixed one, so defining it again (a newer version of this
 * file) updates it in place and every guest's rules with it; a new UUID would be refused, and undefining first
 * would leave guests briefly unfiltered.
 */

export const IPV6_FILTER = "vps-clean-traffic-v6";
const IPV6_RULES_FILTER = "vps-ipv6";

/** The filter definitions, the referenced one first (it must exist before the filter that names it). */
export const IPV6_FILTER_XML: readonly string[] = [
  `<filter name='${IPV6_RULES_FILTER}' chain='ipv6'>
  <uuid>5c0d3f5e-7a4e-4b8e-9a53-3f1d2a6b7c01</uuid>
  <!-- router advertisements (134) and redirects (137): a guest is never a router, nor told of one -->
  <rule action='drop' direction='inout' priority='100'><ipv6 protocol='icmpv6' type='134'/></rule>
  <rule action='drop' direction='inout' priority='110'><ipv6 protocol='icmpv6' type='137'/></rule>
  <rule action='accept' direction='out' priority='200'><ipv6 srcipaddr='$IPV6_NET' srcipmask='64'/></rule>
  <rule action='accept' direction='out' priority='210'><ipv6 srcipaddr='$IPV6_LL'/></rule>
  <!-- multicast listener reports (143) before a link-local address exists; duplicate address probes are not needed -->
  <rule action='accept' direction='out' priority='220'><ipv6 srcipaddr='::' protocol='icmpv6' type='143'/></rule>
  <rule action='drop' direction='out' priority='300'/>
  <rule action='accept' direction='in' priority='400'/>
</filter>
`,
  `<filter name='${IPV6_FILTER}' chain='root'>
  <uuid>5c0d3f5e-7a4e-4b8e-9a53-3f1d2a6b7c02</uuid>
  <filterref filter='no-mac-spoofing'/>
  <filterref filter='no-ip-spoofing'/>
  <rule direction='out' action='accept' priority='-650'><mac protocolid='ipv4'/></rule>
  <filterref filter='allow-incoming-ipv4'/>
  <filterref filter='no-arp-spoofing'/>
  <rule action='accept' direction='inout' priority='-500'><mac protocolid='arp'/></rule>
  <filterref filter='${IPV6_RULES_FILTER}'/>
  <filterref filter='no-other-l2-traffic'/>
  <filterref filter='qemu-announce-self'/>
</filter>
`,
];
