import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import { ReinstallServerRequestSchema, RootPasswordRequestSchema } from "@/lib/api/schemas/server-machine";
import { checkReinstall } from "./reinstall-rules";

const row = { hostname: "web-1", status: "active", os: "debian-12" };
const images =
  (...ids: string[]) =>
  (os: string) =>
    ids.includes(os);

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error("not refused");
};

describe("reinstall rules", () => {
  it("installs the current OS by default, or the one asked for when its image exists", () => {
    expect(checkReinstall(row, { confirm: "web-1" }, images("debian-12"))).toBe("debian-12");
    expect(checkReinstall(row, { confirm: " WEB-1 ", os: "ubuntu-24.04" }, images("ubuntu-24.04"))).toBe(
      "ubuntu-24.04",
    );
  });

  it("refuses a confirmation that is not the hostname, an inactive server and an OS without image", () => {
    expect(refusal(() => checkReinstall(row, { confirm: "web-2" }, images("debian-12")))).toEqual({
      status: 400,
      code: "confirmation_mismatch",
    });
    expect(refusal(() => checkReinstall(row, { confirm: "" }, images("debian-12")))).toMatchObject({
      code: "confirmation_mismatch",
    });
    for (const status of ["provisioning", "suspended", "terminated"]) {
      expect(
        refusal(() => checkReinstall({ ...row, status }, { confirm: "web-1" }, images("debian-12"))),
      ).toEqual({ status: 409, code: "server_not_active" });
    }
    expect(
      refusal(() => checkReinstall(row, { confirm: "web-1", os: "freebsd-14" }, images("debian-12"))),
    ).toEqual({ status: 409, code: "os_unavailable" });
    expect(refusal(() => checkReinstall(row, { confirm: "web-1" }, images()))).toEqual({
      status: 409,
      code: "os_unavailable",
    });
  });

  it("validates the bodies like an order: catalog OS ids, password rules, no unknown fields", () => {
    expect(ReinstallServerRequestSchema.safeParse({ confirm: "web-1" }).success).toBe(true);
    expect(ReinstallServerRequestSchema.safeParse({}).success).toBe(false);
    expect(ReinstallServerRequestSchema.safeParse({ confirm: "web-1", os: "windows-95" }).success).toBe(
      false,
    );
    expect(ReinstallServerRequestSchema.safeParse({ confirm: "web-1", root_password: "short" }).success).toBe(
      false,
    );
    expect(ReinstallServerRequestSchema.safeParse({ confirm: "web-1", plan: "fox" }).success).toBe(false);
    expect(ReinstallServerRequestSchema.safeParse({ confirm: "web-1", ssh_keys: [] }).data?.ssh_keys).toEqual(
      [],
    );
    expect(RootPasswordRequestSchema.safeParse({}).success).toBe(true);
    expect(RootPasswordRequestSchema.safeParse({ root_password: "has spaces in it" }).success).toBe(false);
    expect(RootPasswordRequestSchema.safeParse({ root_password: "Long-enough-1" }).success).toBe(true);
  });
});
