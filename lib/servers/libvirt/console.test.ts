import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { ConsoleEnd } from "../console-stream";
import { endReason, openSerialConsole, withoutEscape } from "./console";

/** The pids of every socat and virsh console on this machine whose arguments name `domain`. */
function consoleProcesses(domain: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return out
    .split("\n")
    .filter(
      (line) =>
        /\b(virsh .*console|socat -d -d STDIO PTY)/.test(line) &&
        (line.includes(domain) || line.includes("socat")),
    )
    .map((line) => line.trim().split(/\s+/)[0] ?? "");
}

describe("the serial console through virsh", () => {
  it("tells a stopped machine, a console taken over and a host failure apart", () => {
    expect(endReason("error: The domain is not running\n", "stopped")).toBe("machine_stopped");
    expect(endReason("", "stopped")).toBe("machine_stopped");
    expect(endReason("", "missing")).toBe("machine_stopped");
    expect(endReason("error: stream had I/O failure\n", "running")).toBe("replaced");
    expect(endReason("error: failed to connect to the hypervisor\n", "unknown")).toBe("host_error");
  });

  it("keeps virsh's escape character (Ctrl+]) from the guest", () => {
    expect(withoutEscape(Buffer.from("ab\x1dc\x1d"))).toEqual(Buffer.from("abc"));
    const plain = Buffer.from("ls -l\r");
    expect(withoutEscape(plain)).toBe(plain);
  });

  // libvirt's built-in test driver has a running domain "test" but no consoles: a real virsh under a real
  // pseudo-terminal gets a real refusal, which must end the stream and leave no process behind.
  it("reports a host that refuses the console, and leaves no socat or virsh behind", async () => {
    const ended = new Promise<{ why: ConsoleEnd; detail?: string }>((resolve) => {
      openSerialConsole(
        { uri: "test:///default", domain: "test", state: async () => "running" },
        { data: () => {}, end: (why, detail) => resolve({ why, detail }) },
      );
    });
    const { why, detail } = await ended;
    expect(why).toBe("host_error");
    expect(detail).toMatch(/not supported/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(consoleProcesses("test:///default")).toEqual([]);
  });

  it("stops both processes when closed from our side", async () => {
    let output = "";
    const ends: ConsoleEnd[] = [];
    const stream = openSerialConsole(
      { uri: "test:///default", domain: "test", state: async () => "running" },
      { data: (chunk) => (output += chunk), end: (why) => ends.push(why) },
    );
    stream.close();
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ends).toEqual(["closed"]);
    expect(output).toBe("");
    expect(consoleProcesses("test:///default")).toEqual([]);
  });
});
