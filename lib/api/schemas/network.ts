import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import {
  DIRECTIONS,
  MAX_FIREWALL_RULES,
  MAX_RULE_NETWORKS,
  PROTOCOLS,
  RULE_ACTIONS,
} from "@/lib/servers/network/limits";
import { timestamp } from "./common";

const HitsSchema = z
  .object({ packets: z.int(), bytes: z.int() })
  .nullable()
  .meta({
    id: "FirewallHits",
    description:
      "How many packets (and bytes) this rule decided on the host since it was first applied; counts survive " +
      "other rules changing. Null where they cannot be read now (host unreachable, machine not built, simulated).",
  });

const ruleFields = {
  direction: z.enum(DIRECTIONS).meta({
    description: "`in`: connections to the server; `out`: connections the server opens.",
  }),
  protocol: z.enum(PROTOCOLS).meta({ description: "`icmp` covers ICMP and ICMPv6; `any` every protocol." }),
  ports: z
    .string()
    .max(100)
    .nullable()
    .optional()
    .meta({
      description:
        "Destination ports of tcp or udp: `22`, `8000-8100`, or up to 15 of them joined by commas (`80,443`). " +
        "Omitted or null: every port. Not for icmp or any.",
      example: "22",
    }),
  sources: z
    .array(z.string().max(43))
    .max(MAX_RULE_NETWORKS)
    .optional()
    .meta({
      description:
        "Networks the packets come from (CIDR or a bare address, IPv4 and IPv6 mixed); omitted or empty: any. " +
        "A rule naming only IPv4 networks applies to IPv4 only (and the same for IPv6).",
      example: ["203.0.113.0/24", "2001:db8:beef::/48"],
    }),
  destinations: z.array(z.string().max(43)).max(MAX_RULE_NETWORKS).optional().meta({
    description: "Networks the packets go to, as `sources`; for outbound rules the remote end.",
  }),
  action: z.enum(RULE_ACTIONS),
  description: z.string().max(100).nullable().optional().meta({ example: "SSH from the office" }),
};

export const FirewallRuleInputSchema = z.strictObject(ruleFields).meta({ id: "FirewallRuleInput" });

export const FirewallRuleSchema = z
  .object({
    ...ruleFields,
    ports: z.string().nullable(),
    sources: z.array(z.string()),
    destinations: z.array(z.string()),
    description: z.string().nullable(),
    hits: HitsSchema,
  })
  .meta({ id: "FirewallRule", description: "A rule as stored: addresses as canonical networks." });

export const FirewallSchema = z
  .object({
    available: z.boolean().meta({
      description:
        "False where the server's host forwards only its SSH port (no public network): nothing can be filtered.",
    }),
    rules: z.array(FirewallRuleSchema).meta({
      description: "In order: the first rule matching a new connection decides.",
    }),
    default_inbound: z.enum(["accept", "drop"]).meta({
      description:
        "What happens to an inbound connection no rule matched: `drop` once the list holds any rule.",
    }),
    default_inbound_hits: HitsSchema,
    default_outbound: z.literal("accept").meta({
      description: "Outbound connections no rule matched pass (drop them with an outbound rule).",
    }),
    smtp: z.enum(["blocked", "open"]).meta({
      description:
        "Outbound mail (tcp 25): `blocked` by default on every server, before any rule; the operator opens it " +
        "on request (a working reverse DNS name helps). Ports 465 and 587 are not affected.",
    }),
    smtp_hits: HitsSchema,
    revision: z.int().meta({ description: "Raised by every change of the rules or of the SMTP policy." }),
    applied_revision: z
      .int()
      .nullable()
      .meta({ description: "The revision the host has applied (null: none yet)." }),
    state: z.enum(["applied", "pending"]).meta({
      description:
        "`applied`: the host filters with the current revision; `pending`: not yet (the server is busy with " +
        "another operation, or the host refused and it is retried: see `error`).",
    }),
    applied_at: timestamp().nullable(),
    error: z
      .string()
      .nullable()
      .meta({ description: "Why the host has not applied the current revision yet." }),
    counters_read_at: timestamp()
      .nullable()
      .meta({ description: "When the hit counts were read from the host." }),
  })
  .meta({
    id: "Firewall",
    description:
      "The server's firewall, enforced on its host in front of the machine (the machine's own firewall is " +
      "untouched). Stateful: answers to connections it let through always pass, and changing the rules never " +
      "cuts an established connection. One rule list covers IPv4 and IPv6.",
  });

export const SetFirewallRequestSchema = z
  .strictObject({
    rules: z
      .array(FirewallRuleInputSchema)
      .max(MAX_FIREWALL_RULES)
      .meta({
        description: `The whole ordered list, replacing the current one; at most ${MAX_FIREWALL_RULES} rules. [] removes every rule.`,
      }),
  })
  .meta({ id: "SetFirewallRequest" });

export const SetFirewallBody = requestBody(SetFirewallRequestSchema, { rules: "invalid_firewall_rules" });

export const SimulationRequestSchema = z
  .strictObject({
    direction: z.enum(DIRECTIONS),
    protocol: z.enum(["tcp", "udp", "icmp"]),
    port: z.int().min(1).max(65535).nullable().optional().meta({
      description: "Destination port (tcp and udp): the server's inbound, the remote one outbound.",
      example: 22,
    }),
    remote_address: z.string().max(45).meta({
      description: "The other end: the packet's source inbound, its destination outbound.",
      example: "198.51.100.7",
    }),
    local_address: z.string().max(45).nullable().optional().meta({
      description: "One of the server's own addresses; default its IPv4, or `::1` of its /64 for IPv6.",
    }),
  })
  .meta({ id: "FirewallSimulationRequest" });

export const SimulationBody = requestBody(SimulationRequestSchema, {
  direction: "invalid_simulation",
  protocol: "invalid_simulation",
  port: "invalid_simulation",
  remote_address: "invalid_simulation",
  local_address: "invalid_simulation",
});

export const SimulationSchema = z
  .object({
    verdict: z.enum(["accept", "drop"]),
    decided_by: z.enum(["rule", "default", "smtp_policy"]).meta({
      description: "A rule (`rule_index`), the default for its direction, or the SMTP policy.",
    }),
    rule_index: z.int().nullable().meta({ description: "The deciding rule's place in the list, from 0." }),
    rule: FirewallRuleSchema.omit({ hits: true }).nullable(),
    remote_address: z.string(),
    local_address: z.string(),
  })
  .meta({
    id: "FirewallSimulation",
    description:
      "What the firewall would do with the first packet of such a new connection (answers to a connection it " +
      "let through always pass), worked out from the stored rules as the host applies them.",
  });

export const PtrSchema = z
  .object({
    address: z.string().meta({ example: "2001:db8:1:105::1" }),
    name: z
      .string()
      .nullable()
      .meta({ description: "The PTR's host name; null: the address has none.", example: "mail.example.com" }),
    default: z
      .boolean()
      .meta({ description: "True for the generated name (or none) the address has when not set." }),
    state: z.enum(["applied", "pending", "unmanaged"]).meta({
      description:
        "`applied`: DNS serves it; `pending`: not yet (see `reason`; retried in the background); `unmanaged`: " +
        "this deployment keeps no reverse DNS.",
    }),
    reason: z.string().nullable().meta({ description: "Why a pending record is not in DNS yet." }),
    updated_at: timestamp().nullable(),
  })
  .meta({ id: "Ptr" });

export const PtrListSchema = z
  .object({
    managed: z.boolean().meta({ description: "Whether this deployment keeps reverse DNS (PowerDNS)." }),
    records: z.array(PtrSchema).meta({
      description: "The IPv4's and `::1`'s PTRs first, then every other address of the /64 that was named.",
    }),
  })
  .meta({ id: "PtrList" });

export const SetPtrRequestSchema = z
  .strictObject({
    name: z.string().max(254).meta({
      description: "A fully qualified host name that already resolves to the address (A or AAAA).",
      example: "mail.example.com",
    }),
  })
  .meta({ id: "SetPtrRequest" });

export const SetPtrBody = requestBody(SetPtrRequestSchema, { name: "invalid_ptr_name" });

export const PtrNotConfirmedSchema = z
  .object({
    error: z.literal("ptr_not_forward_confirmed"),
    message: z.string().meta({
      example:
        "mail.example.com resolves to 198.51.100.9, not to 203.0.113.10: point it at 203.0.113.10 first (an A record), then set the PTR.",
    }),
    resolved: z.array(z.string()).meta({ description: "What the name resolved to (empty: nothing)." }),
  })
  .meta({ id: "PtrNotForwardConfirmed" });

export type Firewall = z.infer<typeof FirewallSchema>;
export type Ptr = z.infer<typeof PtrSchema>;
