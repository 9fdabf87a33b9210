import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withFakeVirsh } from "@/lib/testing/fake-virsh";
import type { ServerSettings } from "../config";
import { customerReason, HOST_UNREACHABLE } from "../failure-reasons";
import type { ServerRow } from "../present";
import { GuestAgentUnavailableError, HostUnreachableError } from "../provisioner";
import { isAgentUnavailable, LibvirtProvisioner, passwordOutcome } from "./provisioner";
import { VirshError, virsh, virshScript, virshShellArg } from "./virsh";

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

describe("a virsh whose connection to the host closes before it says why", () => {
  // As the real one does now and then under load when ssh's connection is refused: ended by SIGPIPE, silent.
  const SILENT_SIGPIPE = ["#!/bin/sh", "kill -PIPE $$"];

  it("is a host that could not be reached, for commands and for scripts alike", () =>
    withFakeVirsh(SILENT_SIGPIPE, async () => {
      const uri = "qemu+ssh://nobody@127.0.0.1:1/system";
      for (const failure of [
        await virsh(uri, ["list"]).catch((error: unknown) => error),
        await virshScript(uri, "list\n").catch((error: unknown) => error),
      ]) {
        expect(failure).toBeInstanceOf(VirshError);
        expect((failure as VirshError).stderr).toContain("SIGPIPE");
        expect(customerReason(failure)).toBe(HOST_UNREACHABLE);
      }
    }));
});

/** Every path below `dir`, relative to it. */
const filesUnder = (dir: string) => readdirSync(dir, { recursive: true }).map(String);

describe("virsh leaves nothing on disk and never waits on its standard input", () => {
  const saved = { HOME: process.env.HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(path.join(tmpdir(), "virsh-test-"));
    // virsh's own default: the history goes to $HOME/.cache unless XDG_CACHE_HOME says otherwise.
    delete process.env.XDG_CACHE_HOME;
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A HOME nothing can be created in, even by root: its parent is a regular file (as under ProtectHome). */
  function unwritableHome(): string {
    const file = path.join(scratch, "not-a-directory");
    writeFileSync(file, "");
    return path.join(file, "home");
  }

  it("keeps no history of commands (a password hash among them) in HOME", async () => {
    const home = path.join(scratch, "home");
    mkdirSync(home);
    process.env.HOME = home;
    // A temporary folder of this test's own, so virsh calls of other processes cannot show up in it.
    const temporary = path.join(scratch, "tmp");
    mkdirSync(temporary);
    const savedTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    try {
      const secret = "$6$saltsalt$not-a-real-hash-but-secret";
      await virshScript(TEST_URI, `echo ${virshShellArg(secret)}\n`);
      await virsh(TEST_URI, ["list", "--all"]);
    } finally {
      if (savedTmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmpdir;
    }
    expect(filesUnder(home)).toEqual([]);
    // The private cache folder each call used is gone too.
    expect(readdirSync(temporary)).toEqual([]);
  });

  it("works where HOME cannot be written, as under the shipped systemd unit", async () => {
    process.env.HOME = unwritableHome();
    const output = await virshScript(
      TEST_URI,
      `set-user-password --domain test --user root --password ${virshShellArg("$6$echoed$secret")}\n`,
    );
    expect(output).toMatch(/Password set successfully for root in test/);
    // The command virsh echoes after its prompt (with the hash) is not passed on.
    expect(output).not.toContain("echoed");
    await expect(virsh(TEST_URI, ["domstate", "test"])).resolves.toMatch(/running/);
  });

  it("closes standard input: virsh waiting for input ends at once instead of at its timeout", async () => {
    // No command: virsh reads commands from standard input, which is closed, so it exits straight away.
    const started = Date.now();
    await virsh(TEST_URI, [], { timeoutMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 40_000);

  describe("a new root password through the provisioner (openssl, then virsh on the test driver)", () => {
    /** A test-driver node with one running and one shut-off domain, named as the provisioner names them. */
    function provisioner(): LibvirtProvisioner {
      const node = path.join(scratch, "node.xml");
      const domain = (id: number, state: number) =>
        `<domain type="test" xmlns:test="http://libvirt.org/schemas/domain/test/1.0"><name>vpst-${id}</name>` +
        `<memory>65536</memory><os><type>hvm</type></os><test:runstate>${state}</test:runstate></domain>`;
      writeFileSync(node, `<node>${domain(7, 1)}${domain(8, 5)}</node>`);
      const host = (name: string, uri: string) => ({
        name,
        location: "nl",
        uri,
        memoryMb: 1,
        vcpus: 1,
        diskGb: 1,
      });
      return new LibvirtProvisioner({
        hypervisors: [
          host("test-1", `test://${node}`),
          host("gone-1", "qemu+ssh://nobody@127.0.0.1:1/system?no_tty=1"),
        ],
        domainPrefix: "vpst-",
      } as ServerSettings);
    }
    const server = (id: number, hypervisor = "test-1") => ({ id, hypervisor }) as ServerRow;

    it("sets it with HOME unwritable, and says why when it cannot", async () => {
      process.env.HOME = unwritableHome();
      const libvirt = provisioner();
      await expect(libvirt.setRootPassword(server(7), "A-new-password-1")).resolves.toBeUndefined();
      await expect(libvirt.setRootPassword(server(8), "A-new-password-1")).rejects.toBeInstanceOf(
        GuestAgentUnavailableError,
      );
      await expect(libvirt.setRootPassword(server(9), "A-new-password-1")).rejects.toBeInstanceOf(
        GuestAgentUnavailableError,
      );
      await expect(libvirt.setRootPassword(server(7, "gone-1"), "A-new-password-1")).rejects.toBeInstanceOf(
        HostUnreachableError,
      );
    }, 30_000);
  });
});

describe("what virsh's output says about a new password", () => {
  const SET = "virsh # set-user-password ...\nPassword set successfully for root in vps-7\nvirsh # \n";

  it("is set once virsh said so, whatever it printed after", () => {
    expect(passwordOutcome(SET, "", false)).toBe("set");
    expect(
      passwordOutcome(SET, "error: Failed to create '/home/vps/.cache/libvirt/virsh': Read-only", false),
    ).toBe("set");
  });

  it("is unchanged when the agent or the host refused before acting", () => {
    expect(
      passwordOutcome("", "error: Guest agent is not responding: QEMU guest agent is not connected", false),
    ).toBe("agent_unavailable");
    expect(passwordOutcome("", "error: Requested operation is not valid: domain is not running", false)).toBe(
      "agent_unavailable",
    );
    expect(
      passwordOutcome(
        "",
        "error: failed to connect to the hypervisor\nerror: Cannot recv data: ssh: ...",
        false,
      ),
    ).toBe("host_unreachable");
  });

  it("is unknown when virsh was cut off or failed in another way", () => {
    expect(passwordOutcome("virsh # ", "", true)).toBe("unconfirmed");
    expect(passwordOutcome("virsh # ", "error: internal error: unexpected reply", false)).toBe("unconfirmed");
    expect(passwordOutcome("", "", false)).toBe("unconfirmed");
  });
});
