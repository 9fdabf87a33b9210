/** The words and limits of a firewall rule, shared by the rules (rules.ts) and the API's schemas. */

export const DIRECTIONS = ["in", "out"] as const;
export const PROTOCOLS = ["tcp", "udp", "icmp", "any"] as const;
export const RULE_ACTIONS = ["accept", "drop"] as const;

/** The most rules a server's firewall holds. */
export const MAX_FIREWALL_RULES = 100;
/** The most networks one rule lists in `sources` or `destinations`. */
export const MAX_RULE_NETWORKS = 64;
/** The most ports and ranges one rule lists. */
export const MAX_RULE_PORTS = 15;
