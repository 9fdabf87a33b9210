import { describe, expect, it } from "vitest";
import { isAgentUnavailable } from "./provisioner";
import { VirshError, virshScript, virshShellArg } from "./virsh";

// libvirt's built-in test driver: a real virsh and its command parser, no daemon needed.
const TEST_URI = "test:///default";

describe("virsh commands on standard input", () => {
  it("passes any printable argument through virsh's parser unchanged", async () => {
    const values = [`$6$salt$a/b.c`, `quote'and"double`, "semi;colon#hash \\back", "a b  c"];
    for (const value of values) {
      const out = await virshScript(TEST_URI, `echo ${virshShellArg(value)}\n`);
      expect(out).toContain(value);
    }
    expect(() => virshShellArg("two\nlines")).toThrow(RangeError);
  });

  it("reads a failure from virsh's error lines, though its shell exits 0", async () => {
    await expect(
      virshScript(TEST_URI, "set-user-password --domain test --user root --password x\n"),
    ).resolves.toBeTypeOf("string");
    const failure = await virshScript(
      TEST_URI,
      "set-user-password --domain vpsa-none --user root --password x\n",
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VirshError);
    expect(isAgentUnavailable((failure as VirshError).stderr)).toBe(true);
    expect(
      isAgentUnavailable("error: Guest agent is not responding: QEMU guest agent is not connected"),
    ).toBe(true);
    expect(isAgentUnavailable("error: Requested operation is not valid: domain is not running")).toBe(true);
    expect(isAgentUnavailable("error: failed to connect to the hypervisor")).toBe(false);
  });
});
