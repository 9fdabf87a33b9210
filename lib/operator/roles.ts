import { OPERATOR_ROLES, type OperatorRole } from "@/lib/db/types";

/**
 * What each operator role may do. Every role reads the console (overview, hosts, payments, accounts); support
 * also acts on customers (suspend and lift, close consoles, mark payments reviewed, open or close a server's
 * outbound mail); admin also moves money (ledger adjustments, and approving another admin's past their daily
 * cap), drains hosts, reads the audit log and deactivates operators.
 */

export type OperatorPermission =
  | "read"
  | "suspend"
  | "review_payment"
  | "adjust_ledger"
  | "drain_host"
  | "read_audit"
  | "manage_operators"
  | "mail_policy";

const GRANTS: Record<OperatorRole, ReadonlySet<OperatorPermission>> = {
  "read-only": new Set(["read"]),
  support: new Set(["read", "suspend", "review_payment"]),
  admin: new Set([
    "read",
    "suspend",
    "review_payment",
    "adjust_ledger",
    "drain_host",
    "read_audit",
    "manage_operators",
    "mail_policy",
  ]),
};

export const isOperatorRole = (value: string): value is OperatorRole =>
  (OPERATOR_ROLES as readonly string[]).includes(value);

export function may(role: OperatorRole, permission: OperatorPermission): boolean {
  return GRANTS[role].has(permission);
}

/** The lowest role holding `permission`, for the refusal's message. */
export function lowestRoleFor(permission: OperatorPermission): OperatorRole {
  return OPERATOR_ROLES.find((role) => may(role, permission)) ?? "admin";
}
