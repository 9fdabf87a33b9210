import { type ChildProcess, execFile, spawn } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import type { ConsoleEnd, ConsoleHandlers, ConsoleStream } from "../console/stream";

/**
 * A machine's serial console through libvirt, on whatever URI its host is reached by (qemu:///system,
 * qemu+ssh, qemu+libssh): `virsh console` opens libvirt's console stream for the domain, which the remote
 * transports carry like any other call. virsh refuses to run without a terminal on its standard input, and
 * Node cannot make a pseudo-terminal without a native addon, so socat makes one: `socat STDIO PTY` holds the
 * master end and copies our writes into it; virsh gets the slave end as its standard input (it switches it
 * to raw mode itself) and writes the guest's output to a plain pipe we read. Both are spawned with argument
 * arrays; no shell and no command string is involved. Both run under util-linux's `setpriv --pdeathsig`, so
 * the kernel ends them when this process dies, whatever state they are in (socat also exits on end-of-file on
 * its standard input, and virsh when its terminal hangs up): nothing is left behind, here or on the host.
 */

/** virsh's escape character (Ctrl+]) ends its console, so that byte is kept from the guest. */
const VIRSH_ESCAPE = 0x1d;
const PTY_LINE = /PTY is (\/dev\/pts\/\d+)/;
/**
 * socat's end: a pseudo-terminal that waits until virsh has opened its slave end, checking every 10 ms
 * (socat's default is once a second, which a console's first byte would wait for). It starts in the
 * kernel's canonical mode, so virsh's switch to raw mode can be seen from here (see untilRaw).
 */
const SOCAT_PTY = "PTY,wait-slave,pty-interval=0.01";
const START_TIMEOUT_MS = 5_000;
/** A helper still running this long after it was asked to end is killed. */
const KILL_AFTER_MS = 5_000;
/**
 * The last line virsh prints before it makes its terminal raw and opens the stream. Making it raw flushes
 * (TCSAFLUSH) whatever was typed before, so client input waits for this line (kept from the client) and then
 * for the terminal to be raw.
 */
const CONNECTED_BANNER = /Escape character is [^\n]*\n/;
/** What virsh prints when its connection to libvirt is gone; it does not exit by itself after it. */
const LOST_CONNECTION = /Disconnected from \S+ due to /;
/** virsh's greeting is a couple of short lines; more without the banner means it is not coming. */
const BANNER_MAX_BYTES = 4096;
/** Client input held while virsh connects (a paste's worth); beyond it, input is dropped. */
const HELD_INPUT_MAX_BYTES = 64 * 1024;

/** How long virsh may take from its banner to raw mode before held input is sent anyway, and how often to look. */
const RAW_WAIT_MS = 5_000;
const RAW_POLL_MS = 20;

/**
 * Resolves once the terminal at `pty` has left canonical mode, which virsh's switch to raw mode (and its
 * flush) does, or after RAW_WAIT_MS. On a busy machine virsh may print its banner well before it gets
 * there; input written in between would be flushed. Node cannot read terminal settings itself: stty can.
 */
async function untilRaw(pty: string, env: NodeJS.ProcessEnv, gaveUp: () => boolean): Promise<void> {
  const deadline = Date.now() + RAW_WAIT_MS;
  while (Date.now() < deadline && !gaveUp()) {
    const settings = await new Promise<string>((resolve) =>
      execFile("stty", ["-F", pty, "-a"], { env }, (error, stdout) => resolve(error ? "" : stdout)),
    );
    if (/(^|\s)-icanon(\s|$)/.test(settings)) return;
    await delay(RAW_POLL_MS);
  }
}

/** Runs `program` so that it is killed when this process dies (PR_SET_PDEATHSIG, kept across exec). */
const withParent = (program: string, args: string[]) => ["--pdeathsig", "TERM", "--", program, ...args];

export type SerialConsoleTarget = {
  uri: string;
  domain: string;
  /** The domain's state once the stream has ended: a stopped machine is not a failure. */
  state: () => Promise<"running" | "stopped" | "missing">;
  /** How long a console that ended by itself waits for the state to say stopped (default STATE_SETTLE_MS). */
  stateSettleMs?: number;
};

/**
 * virsh's console ends as the guest's qemu exits, and libvirt marks the domain shut off a moment later: on a
 * busy host, long enough for one look to still read "running" (or "in shutdown"). Before calling such an end
 * a host failure, the state is read again for up to this long.
 */
const STATE_SETTLE_MS = 5_000;
const STATE_POLL_MS = 250;

/** The domain's state, read until it says stopped or missing, or `settleMs` has passed. */
async function settledState(
  read: SerialConsoleTarget["state"],
  settleMs: number,
): Promise<"running" | "stopped" | "missing" | "unknown"> {
  const deadline = Date.now() + settleMs;
  for (;;) {
    const state = await read().catch(() => "unknown" as const);
    if (state === "stopped" || state === "missing" || Date.now() >= deadline) return state;
    await delay(STATE_POLL_MS);
  }
}

/** What virsh's last words and the domain's state say about why a console ended that we did not close. */
export function endReason(stderr: string, state: "running" | "stopped" | "missing" | "unknown"): ConsoleEnd {
  if (/domain is not running/i.test(stderr) || state === "stopped" || state === "missing") {
    return "machine_stopped";
  }
  // libvirt aborts the older stream when another client opens the console with --force.
  if (/stream had I\/O failure/i.test(stderr)) return "replaced";
  return "host_error";
}

/** Strips virsh's escape byte from client input. */
export function withoutEscape(bytes: Buffer): Buffer {
  return bytes.includes(VIRSH_ESCAPE) ? Buffer.from(bytes.filter((byte) => byte !== VIRSH_ESCAPE)) : bytes;
}

export function openSerialConsole(target: SerialConsoleTarget, handlers: ConsoleHandlers): ConsoleStream {
  const env = { ...process.env, LC_ALL: "C" };
  let virsh: ChildProcess | undefined;
  let closedByUs = false;
  let ended = false;
  let stderr = "";
  let pty = "";
  /** Until virsh has said it is connected: its greeting so far. */
  let greeting: Buffer | undefined = Buffer.alloc(0);
  /** Until its terminal is raw: the client's input, held back. */
  let holding = true;
  let held: Buffer[] = [];
  let heldBytes = 0;

  /** False when the pipe to socat is full (the gateway then stops reading its client until drain). */
  const writeToTerminal = (bytes: Buffer): boolean =>
    ended ? true : (socat.stdin?.write(withoutEscape(bytes)) ?? true);
  /** virsh's stdout: its greeting first (kept from the client), then the machine's bytes. */
  const fromVirsh = (chunk: Buffer) => {
    if (ended) return;
    if (greeting === undefined) return handlers.data(chunk);
    greeting = Buffer.concat([greeting, chunk]);
    const banner = CONNECTED_BANNER.exec(greeting.toString("latin1"));
    if (!banner && greeting.length < BANNER_MAX_BYTES) return;
    const rest = banner ? greeting.subarray(banner.index + banner[0].length) : greeting;
    greeting = undefined;
    if (banner) handlers.connected?.();
    if (rest.length > 0) handlers.data(rest);
    void untilRaw(pty, env, () => ended).then(() => {
      holding = false;
      for (const bytes of held) writeToTerminal(bytes);
      held = [];
    });
  };

  const socat = spawn("setpriv", withParent("socat", ["-d", "-d", "STDIO", SOCAT_PTY]), {
    stdio: ["pipe", "ignore", "pipe"],
    env,
  });
  // A write racing the end of either process is lost, never thrown.
  socat.stdin?.on("error", () => {});
  socat.stdin?.on("drain", () => {
    if (!ended) handlers.drain?.();
  });

  const finish = async (detail: string) => {
    if (ended) return;
    ended = true;
    clearTimeout(startTimer);
    if (socat.exitCode === null) socat.kill("SIGTERM");
    if (virsh && virsh.exitCode === null) virsh.kill("SIGTERM");
    // virsh ignores SIGTERM (it leaves when its terminal hangs up, as socat exits): should it linger, KILL.
    const lingering = [socat, virsh];
    setTimeout(() => {
      for (const child of lingering)
        if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }, KILL_AFTER_MS).unref();
    if (closedByUs) {
      handlers.end("closed");
      return;
    }
    // virsh's own words settle it when they can (a stopped domain, a console taken over); else the state does.
    const fromWords = endReason(detail, "unknown");
    const why =
      fromWords === "host_error"
        ? endReason(detail, await settledState(target.state, target.stateSettleMs ?? STATE_SETTLE_MS))
        : fromWords;
    handlers.end(why, detail.trim() || undefined);
  };

  const startTimer = setTimeout(() => void finish("socat made no pseudo-terminal in time"), START_TIMEOUT_MS);
  let socatLog = "";
  socat.stderr?.on("data", (chunk: Buffer) => {
    if (virsh || ended) return;
    socatLog = (socatLog + chunk.toString()).slice(-4096);
    pty = PTY_LINE.exec(socatLog)?.[1] ?? "";
    if (!pty) return;
    clearTimeout(startTimer);
    let slave: number;
    try {
      slave = openSync(pty, constants.O_RDWR | constants.O_NOCTTY);
    } catch (error) {
      void finish(`could not open ${pty}: ${(error as Error).message}`);
      return;
    }
    try {
      virsh = spawn("setpriv", withParent("virsh", ["-c", target.uri, "console", target.domain, "--force"]), {
        stdio: [slave, "pipe", "pipe"],
        env,
      });
    } finally {
      // virsh holds its own copy; ours would keep the terminal open after virsh has gone.
      closeSync(slave);
    }
    virsh.stdout?.on("data", fromVirsh);
    virsh.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2048);
      // virsh reports a lost connection to libvirt (libvirtd restarted, an SSH link cut) and then stays,
      // carrying nothing: the console ends here instead of staying open and deaf.
      if (LOST_CONNECTION.test(stderr)) void finish(stderr);
    });
    virsh.on("error", (error) => void finish(`virsh: ${error.message}`));
    // "close", not "exit": virsh's last words on stderr have been read by then.
    virsh.on("close", () => void finish(stderr));
  });
  socat.on("error", (error) => void finish(`socat: ${error.message}`));
  socat.on("exit", () => {
    // Before virsh started, or without it: nothing carries the console any more.
    if (!virsh || virsh.exitCode !== null) void finish(stderr || socatLog);
  });

  return {
    write(bytes) {
      if (!holding) return writeToTerminal(bytes);
      if (heldBytes + bytes.length > HELD_INPUT_MAX_BYTES) return true;
      held.push(Buffer.from(bytes));
      heldBytes += bytes.length;
      return true;
    },
    resize() {
      // A serial line has no window size to pass on.
    },
    pause() {
      virsh?.stdout?.pause();
    },
    resume() {
      virsh?.stdout?.resume();
    },
    close() {
      if (ended || closedByUs) return;
      closedByUs = true;
      void finish("");
    },
  };
}
