import { describe, expect, it } from "vitest";
import { DEMO_QUEUE_MAX_BYTES, DemoConsole } from "./demo-console";
import type { ConsoleEnd } from "./stream";

function demo(hostname = "box-1") {
  let output = "";
  const ends: ConsoleEnd[] = [];
  const shell = new DemoConsole(hostname, {
    data: (chunk) => {
      output += chunk.toString("utf8");
    },
    end: (why) => ends.push(why),
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  return { shell, output: () => output, ends, settle };
}

describe("the demo console", () => {
  it("says it is a demo machine and answers a few commands at a prompt", async () => {
    const { shell, output, settle } = demo();
    await settle();
    expect(output()).toContain("[demo]");
    expect(output()).toContain("box-1 is a demo machine");
    expect(output()).toMatch(/root@box-1:~# $/);
    shell.write(Buffer.from("hostname\r"));
    await settle();
    expect(output()).toContain("hostname\r\nbox-1\r\nroot@box-1:~# ");
    shell.write(Buffer.from("rm -rf /\r"));
    await settle();
    expect(output()).toContain("rm: command not found (this is a demo machine)");
  });

  it("edits the line: backspace, Ctrl+C; skips arrow keys; reports the size it was given", async () => {
    const { shell, output, settle } = demo();
    shell.write(Buffer.from("hostnamX\x7fe\x1b[A\x1b[D\r"));
    await settle();
    expect(output()).toContain("\r\nbox-1\r\n");
    shell.write(Buffer.from("some half line\x03"));
    shell.resize(100, 30);
    shell.write(Buffer.from("stty size\r"));
    await settle();
    expect(output()).toContain("^C\r\n");
    expect(output()).toContain("30 100");
  });

  it("holds its output while paused, and ends once when closed", async () => {
    const { shell, output, ends, settle } = demo();
    await settle();
    shell.pause();
    const before = output();
    shell.write(Buffer.from("whoami\r"));
    await settle();
    expect(output()).toBe(before);
    shell.resume();
    await settle();
    expect(output()).toContain("whoami\r\nroot\r\n");
    shell.close();
    shell.close();
    shell.write(Buffer.from("hostname\r"));
    await settle();
    expect(ends).toEqual(["closed"]);
    expect(output()).not.toContain("hostname\r\nbox-1");
  });

  it("shows a pretend reboot, and ends as a stopped machine", async () => {
    const { shell, output, ends, settle } = demo();
    shell.write(Buffer.from("half"));
    shell.rebooted();
    await settle();
    expect(output()).toContain("Rebooting (simulated)");
    expect(output()).toMatch(/root@box-1:~# $/);
    shell.write(Buffer.from("hostname\r"));
    await settle();
    expect(output()).toContain("hostname\r\nbox-1\r\n");
    shell.stopped();
    shell.close();
    await settle();
    expect(ends).toEqual(["machine_stopped"]);
  });

  it("holds at most a bounded amount while its client does not read: the echo of a flood is dropped", async () => {
    const { shell, output, settle } = demo();
    await settle();
    shell.pause();
    const before = output().length;
    // Each Enter echoes a prompt line (about 25 bytes): 4 MiB of echo would pile up unbounded.
    for (let i = 0; i < 10; i++) shell.write(Buffer.from("\r".repeat(16 * 1024)));
    shell.resume();
    await settle();
    const held = output().length - before;
    expect(held).toBeLessThanOrEqual(DEMO_QUEUE_MAX_BYTES + 200);
    expect(output()).toContain("output dropped: the client fell behind");
    // Reading again, the shell answers as before.
    shell.write(Buffer.from("whoami\r"));
    await settle();
    expect(output().endsWith("whoami\r\nroot\r\nroot@box-1:~# ")).toBe(true);
  });
});
