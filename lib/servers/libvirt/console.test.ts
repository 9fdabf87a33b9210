import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { withFakeVirsh } from "@/lib/testing/fake-virsh";
import type { ConsoleEnd } from "../console/stream";
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
        { uri: "test:///default", domain: "test", state: async () => "running", stateSettleMs: 300 },
        { data: () => {}, end: (why, detail) => resolve({ why, detail }) },
      );
    });
    const { why, detail } = await ended;
    expect(why).toBe("host_error");
    expect(detail).toMatch(/not supported/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(consoleProcesses("test:///default")).toEqual([]);
  });

  // The guest's qemu exits, virsh's console ends with it, and libvirt marks the domain shut off only a moment
  // later: a first look that still reads "running" must not turn a stopped machine into a host failure.
  it("calls an end stopped when the state says so a moment after virsh has gone", async () => {
    const looks: string[] = [];
    const states = ["running", "running", "stopped"] as const;
    const ended = new Promise<ConsoleEnd>((resolve) => {
      openSerialConsole(
        {
          uri: "test:///default",
          domain: "test",
          state: async () => {
            const state = states[Math.min(looks.length, states.length - 1)] ?? "stopped";
            looks.push(state);
            return state;
          },
        },
        { data: () => {}, end: (why) => resolve(why) },
      );
    });
    expect(await ended).toBe("machine_stopped");
    expect(looks).toEqual(["running", "running", "stopped"]);
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

  // virsh makes its terminal raw with TCSAFLUSH once connected, which drops whatever was typed before. A
  // stand-in virsh that connects slowly, prints its banner, takes its time (as a busy machine makes virsh
  // do) before doing just that (Perl's POSIX: perl-base is always installed), and echoes what it reads:
  // keys sent the moment the console opens must still reach the machine.
  it("keeps keys typed before virsh is connected, which its switch to raw mode would drop", async () => {
    let output = "";
    await withFakeVirsh(
      [
        "#!/usr/bin/perl",
        "use POSIX;",
        "$| = 1;",
        "select(undef, undef, undef, 0.5);",
        "print \"Connected to domain 'slow'\\nEscape character is ^] (Ctrl + ])\\n\";",
        "select(undef, undef, undef, 0.5);",
        "my $t = POSIX::Termios->new; $t->getattr(0);",
        "$t->setlflag($t->getlflag & ~(ECHO | ICANON)); $t->setiflag($t->getiflag & ~ICRNL);",
        "$t->setattr(0, TCSAFLUSH);",
        "while (sysread(STDIN, my $buf, 1024)) { syswrite(STDOUT, $buf); }",
      ],
      async () => {
        const stream = openSerialConsole(
          { uri: "test:///default", domain: "slow", state: async () => "running" },
          { data: (chunk) => (output += chunk), end: () => {} },
        );
        stream.write(Buffer.from("root\r"));
        // Generous: a busy machine may take seconds to start perl.
        const deadline = Date.now() + 12_000;
        while (!output.includes("root\r") && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        stream.close();
      },
    );
    // The keys arrive, and virsh's own greeting is not shown as the machine's output.
    expect(output).toBe("root\r");
  }, 20_000);

  it("ends a console whose virsh lost libvirt (it says so and stays), and leaves no virsh behind", async () => {
    // What a real virsh does when libvirtd is killed under its console: one line on stderr, then it waits on.
    await withFakeVirsh(
      [
        "#!/usr/bin/perl",
        "$| = 1;",
        "print \"Connected to domain 'orphaned'\\nEscape character is ^] (Ctrl + ])\\n\";",
        "select(undef, undef, undef, 0.3);",
        'print STDERR "error: Disconnected from qemu:///system due to end of file\\n";',
        "sleep 60;",
      ],
      async () => {
        const ended = await new Promise<{ why: ConsoleEnd; detail?: string }>((resolve) => {
          openSerialConsole(
            { uri: "qemu:///system", domain: "orphaned", state: async () => "running", stateSettleMs: 0 },
            { data: () => {}, end: (why, detail) => resolve({ why, detail }) },
          );
        });
        expect(ended.why).toBe("host_error");
        expect(ended.detail).toMatch(/Disconnected from qemu:\/\/\/system/);
        // The virsh that would have waited a minute is gone (SIGTERM, then SIGKILL after 5 s).
        const deadline = Date.now() + 8_000;
        while (consoleProcesses("orphaned").length > 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(consoleProcesses("orphaned")).toEqual([]);
      },
    );
  }, 20_000);
});
