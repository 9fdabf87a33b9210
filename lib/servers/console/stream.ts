/**
 * A live attachment to a machine's serial console, as every provisioner offers it: bytes both ways until
 * one side ends it. Nothing here reads what passes through.
 */

/** Why the host side ended: we closed it, the machine stopped, another console took over, or the host failed. */
export type ConsoleEnd = "closed" | "machine_stopped" | "replaced" | "host_error";

export type ConsoleHandlers = {
  /** Bytes from the machine's serial port. */
  data: (chunk: Buffer) => void;
  /**
   * The stream reached the machine's console before any of its bytes: on a real host, virsh's line saying it
   * is connected (kept from the client). Streams that have no such moment start with their data.
   */
  connected?: () => void;
  /** Called once, when the stream has ended for good; `detail` is the host's own words, for the log. */
  end: (why: ConsoleEnd, detail?: string) => void;
  /** After a write returned false: the stream takes input again. */
  drain?: () => void;
};

export interface ConsoleStream {
  /**
   * Bytes for the serial port: keystrokes and pastes. False when the stream is full: write no more until
   * handlers.drain is called (what was written is kept).
   */
  write(bytes: Buffer): boolean;
  /** The client's terminal size. A serial line carries none; only the demo shell uses it. */
  resize(cols: number, rows: number): void;
  /** Stops and restarts the flow from the machine while the client is behind. */
  pause(): void;
  resume(): void;
  /** Ends the stream from our side (handlers.end then says "closed"); calling it again does nothing. */
  close(): void;
}
