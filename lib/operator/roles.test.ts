import { describe, expect, it } from "vitest";
import { OPERATOR_ROLES } from "@/lib/db/types";
import { lowestRoleFor, may, type OperatorPermission } from "./roles";

const ALL: OperatorPermission[] = [
  "read",
  "suspend",
  "review_payment",
  "adjust_ledger",
  "drain_host",
  "read_audit",
  "mail_policy",
];

describe("operator roles", () => {
  it("read-only reads; support also suspends, reviews and opens mail; only admin moves money, drains and reads the audit log", () => {
    const granted = Object.fromEntries(
      OPERATOR_ROLES.map((role) => [role, ALL.filter((permission) => may(role, permission))]),
    );
    expect(granted).toEqual({
      "read-only": ["read"],
      support: ["read", "suspend", "review_payment", "mail_policy"],
      admin: ALL,
    });
  });

  it("names the lowest role a refusal would need", () => {
    expect(lowestRoleFor("suspend")).toBe("support");
    expect(lowestRoleFor("adjust_ledger")).toBe("admin");
    expect(lowestRoleFor("read")).toBe("read-only");
    expect(lowestRoleFor("mail_policy")).toBe("support");
  });
});
