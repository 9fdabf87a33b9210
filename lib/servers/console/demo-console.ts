import type { ConsoleHandlers, ConsoleStream } from "./stream";

const CRLF = "\r\n";
/** Output held while the client is behind; beyond it, output is dropped (and the client told so once). */
export const DEMO_QUEUE_MAX_BYTES = 1024 * 1024;
const MAX_LINE = 256;
const YELLOW = "\x1b[1;33m";
const RESET = "\x1b[0m";

/**
 * The simulated provisioner's console: no machine exists, so it says so and answers a few commands of a
 * pretend shell, enough to try the dashboard's terminal (typing, pasting, resizing) in the demo.
 */
export class DemoConsole implements ConsoleStream {
  private line = "";
  /** Inside an escape sequence the client sent (arrow keys and the like): skipped, not typed. */
  private escape: "" | "esc" | "csi" = "";
  private size = { cols: 80, rows: 24 };
  private paused = false;
  private queued: string[] = [];
  private queuedBytes = 0;
  private dropped = false;
  private ended = false;

  constructor(
    private readonly hostname: string,
    private readonly handlers: ConsoleHandlers,
  ) {
    this.emit(this.banner());
  }

  private banner(): string {
    return (
      `${YELLOW}[demo]${RESET} ${this.hostname} is a demo machine: the simulated provisioner built no server, so ` +
      `this console is a tiny pretend shell. Type ${YELLOW}help${RESET}.${CRLF}${CRLF}${this.prompt()}`
    );
  }

  /** The pretend machine was rebooted: a pretend boot, then the shell afresh. */
  rebooted(): void {
    this.line = "";
    this.emit(
      `${CRLF}${YELLOW}[demo]${RESET} Rebooting (simulated)...${CRLF}[    0.000000] Linux version demo${CRLF}` +
        `[    0.000001] ${this.hostname}: booted (simulated)${CRLF}${CRLF}${this.banner()}`,
    );
  }

  /** The pretend machine was stopped: its console ends, as a real one does. */
  stopped(): void {
    if (this.ended) return;
    this.ended = true;
    setImmediate(() => this.handlers.end("machine_stopped"));
  }

  private prompt(): string {
    return `root@${this.hostname}:~# `;
  }

  private emit(text: string): void {
    if (this.ended) return;
    if (this.paused) {
      // A client that sends but does not read makes the echo pile up: held up to a bound, then dropped.
      if (this.queuedBytes + text.length > DEMO_QUEUE_MAX_BYTES) {
        if (!this.dropped)
          this.queued.push(`${CRLF}${YELLOW}[demo]${RESET} output dropped: the client fell behind.${CRLF}`);
        this.dropped = true;
        return;
      }
      this.queued.push(text);
      this.queuedBytes += text.length;
      return;
    }
    // Asynchronously, as a real stream delivers: a write never calls back into its caller.
    setImmediate(() => {
      if (!this.ended) this.handlers.data(Buffer.from(text, "utf8"));
    });
  }

  write(bytes: Buffer): boolean {
    let echo = "";
    for (const char of bytes.toString("utf8")) {
      if (this.escape === "esc") {
        this.escape = char === "[" || char === "O" ? "csi" : "";
        continue;
      }
      if (this.escape === "csi") {
        if (/[@-~]/.test(char)) this.escape = "";
        continue;
      }
      if (char === "\x1b") this.escape = "esc";
      else if (char === "\r" || char === "\n") {
        echo += CRLF + this.run(this.line.trim());
        this.line = "";
      } else if (char === "\x7f" || char === "\b") {
        if (this.line.length > 0) {
          this.line = [...this.line].slice(0, -1).join("");
          echo += "\b \b";
        }
      } else if (char === "\x03") {
        echo += `^C${CRLF}${this.prompt()}`;
        this.line = "";
      } else if (char === "\x0c") {
        echo += `\x1b[H\x1b[2J${this.prompt()}${this.line}`;
      } else if (char >= " " && this.line.length < MAX_LINE) {
        this.line += char;
        echo += char;
      }
    }
    if (echo) this.emit(echo);
    return true;
  }

  /** The answer to one command line, ending with the next prompt. */
  private run(command: string): string {
    const [name = "", ...args] = command.split(/\s+/);
    const out = (text: string) => `${text}${CRLF}${this.prompt()}`;
    switch (name) {
      case "":
        return this.prompt();
      case "help":
        return out(
          "A demo shell: hostname, whoami, uname, date, echo, stty size, clear, exit. Order a real server " +
            "on a deployment with PROVISIONER=libvirt for its real serial console.",
        );
      case "hostname":
        return out(this.hostname);
      case "whoami":
        return out("root");
      case "uname":
        return out(args.includes("-a") ? `Linux ${this.hostname} demo x86_64 GNU/Linux` : "Linux");
      case "date":
        return out(new Date().toUTCString());
      case "echo":
        return out(args.join(" "));
      case "stty":
        return args[0] === "size"
          ? out(`${this.size.rows} ${this.size.cols}`)
          : out("stty: demo: only `stty size`");
      case "clear":
        return `\x1b[H\x1b[2J${this.prompt()}`;
      case "exit":
      case "logout":
        return `logout${CRLF}${CRLF}${YELLOW}[demo]${RESET} ${this.hostname} login: root (automatic)${CRLF}${this.prompt()}`;
      default:
        return out(`${name}: command not found (this is a demo machine)`);
    }
  }

  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    const queued = this.queued.join("");
    this.queued = [];
    this.queuedBytes = 0;
    this.dropped = false;
    if (queued) this.emit(queued);
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    setImmediate(() => this.handlers.end("closed"));
  }
}
