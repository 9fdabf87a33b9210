"use client";

import "@xterm/xterm/css/xterm.css";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { useEffect, useRef, useState } from "react";
import { TEXT_STYLES } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import type { ConsoleTicketBody } from "@/lib/api/schemas/console";
import { BffError, bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import {
  CLOSE_REASONS,
  type ClientMessage,
  closeReasonOf,
  MAX_FRAME_BYTES,
  RECONNECT_CODES,
  type ServerMessage,
  TICKET_PROTOCOL_PREFIX,
} from "@/lib/servers/console/protocol";

type Status =
  | { kind: "connecting" }
  | { kind: "open"; demo: boolean }
  | { kind: "reconnecting"; message: string }
  | { kind: "ended"; message: string; reason?: string };

/** A dropped connection is retried this many times, each with a fresh ticket, before the page gives up. */
const MAX_RECONNECTS = 5;

type Controls = { reconnect: () => void; copy: () => void; paste: () => void; close: () => void };

/**
 * A terminal on the machine's serial console: a ticket from the dashboard's server, then a WebSocket that
 * presents it (never a cookie or a key). Sized to its box; copy with Ctrl+Shift+C or the button, paste with
 * Ctrl+V, Ctrl+Shift+V or the button. Says when the machine is stopped, the connection dropped (and
 * reconnects with a fresh ticket) or the session ended.
 */
export default function ConsoleTerminal({
  serverId,
  hostname,
  powerState,
  onClose,
}: {
  serverId: number;
  hostname: string;
  powerState: string | null;
  onClose: () => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const controls = useRef<Controls>(undefined);
  const [status, setStatus] = useState<Status>({ kind: "connecting" });
  const [size, setSize] = useState({ cols: 80, rows: 24 });
  const [notice, setNotice] = useState("");

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const term = new Terminal({
      cursorBlink: true,
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
      fontSize: 14,
      scrollback: 5000,
      theme: { background: "#09090b" },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    fit.fit();
    setSize({ cols: term.cols, rows: term.rows });

    let socket: WebSocket | undefined;
    let disposed = false;
    let attempts = 0;
    let shown = false;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    const encoder = new TextEncoder();

    const sendBytes = (bytes: Uint8Array) => {
      if (socket?.readyState !== WebSocket.OPEN) return;
      for (let start = 0; start < bytes.length; start += MAX_FRAME_BYTES) {
        socket.send(bytes.subarray(start, start + MAX_FRAME_BYTES));
      }
    };
    const sendControl = (message: ClientMessage) => {
      if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    };
    term.onData((data) => sendBytes(encoder.encode(data)));
    term.onBinary((data) => sendBytes(Uint8Array.from(data, (char) => char.charCodeAt(0))));
    term.onResize(({ cols, rows }) => {
      setSize({ cols, rows });
      sendControl({ type: "resize", cols, rows });
    });
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);

    const copy = () => {
      const selection = term.getSelection();
      if (!selection) return setNotice("Select text in the console first.");
      navigator.clipboard?.writeText(selection).then(
        () => setNotice("Copied."),
        () => setNotice("The browser did not allow copying; use its own copy (right click)."),
      );
    };
    const paste = () => {
      navigator.clipboard?.readText().then(
        (text) => {
          term.paste(text);
          term.focus();
        },
        () => setNotice("The browser did not allow reading the clipboard; paste with Ctrl+V instead."),
      );
    };
    // Ctrl+Shift+C and Ctrl+Shift+V, as in terminal programs; Ctrl+C stays the interrupt it is in the guest.
    term.attachCustomKeyEventHandler((event) => {
      if (event.type !== "keydown" || !event.ctrlKey || !event.shiftKey) return true;
      if (event.code === "KeyC") copy();
      else if (event.code === "KeyV") paste();
      else return true;
      event.preventDefault();
      return false;
    });

    const retry = (why: string) => {
      if (attempts >= MAX_RECONNECTS) {
        setStatus({ kind: "ended", message: `${why} Reconnecting failed ${MAX_RECONNECTS} times.` });
        return;
      }
      attempts += 1;
      setStatus({
        kind: "reconnecting",
        message: `${why} Reconnecting with a fresh ticket (attempt ${attempts} of ${MAX_RECONNECTS})…`,
      });
      retryTimer = setTimeout(() => void connect(), Math.min(8_000, 500 * 2 ** (attempts - 1)));
    };

    const connect = async () => {
      if (attempts === 0) setStatus({ kind: "connecting" });
      let ticket: ConsoleTicketBody;
      try {
        ticket = await bffFetch<ConsoleTicketBody>(`/bff/servers/${serverId}/console`, {
          method: "POST",
          body: {},
        });
      } catch (failure) {
        if (disposed) return;
        // A refusal (stopped, too many consoles) is final; a service that did not answer is tried again.
        if (failure instanceof BffError && failure.status < 500) {
          setStatus({ kind: "ended", message: errorMessage(failure), reason: failure.code });
        } else retry("The service did not answer.");
        return;
      }
      if (disposed) return;
      // The same origin as this page, whatever address the API computed the URL with.
      const url = new URL(new URL(ticket.websocket_url).pathname, window.location.href);
      url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
      const current = new WebSocket(url, [ticket.protocol, `${TICKET_PROTOCOL_PREFIX}${ticket.ticket}`]);
      current.binaryType = "arraybuffer";
      socket = current;
      let closedBy: Extract<ServerMessage, { type: "closed" }> | undefined;
      current.onmessage = (event) => {
        if (typeof event.data !== "string") {
          term.write(new Uint8Array(event.data as ArrayBuffer));
          return;
        }
        const message = JSON.parse(event.data) as ServerMessage;
        if (message.type === "closed") {
          closedBy = message;
          return;
        }
        attempts = 0;
        setStatus({ kind: "open", demo: message.demo });
        sendControl({ type: "resize", cols: term.cols, rows: term.rows });
        term.focus();
        // The whole terminal in sight once, when it first connects: it opens below its button, often past
        // the bottom of the window (and xterm.js leaves a terminal out of sight undrawn until it is seen).
        if (!shown) element.scrollIntoView({ block: "nearest" });
        shown = true;
      };
      current.onclose = (event) => {
        if (disposed || socket !== current) return;
        socket = undefined;
        const reason = closedBy?.reason ?? closeReasonOf(event.code);
        if (RECONNECT_CODES.has(event.code)) {
          retry(reason === "restarting" ? CLOSE_REASONS.restarting.message : "The connection dropped.");
        } else {
          setStatus({
            kind: "ended",
            message:
              closedBy?.message ?? (reason ? CLOSE_REASONS[reason].message : "The console session ended."),
            reason,
          });
        }
      };
    };

    controls.current = {
      reconnect: () => {
        clearTimeout(retryTimer);
        attempts = 0;
        const previous = socket;
        socket = undefined;
        previous?.close();
        void connect();
      },
      copy,
      paste,
      close: () => sendControl({ type: "close" }),
    };
    void connect();
    return () => {
      disposed = true;
      clearTimeout(retryTimer);
      observer.disconnect();
      socket?.close();
      term.dispose();
    };
  }, [serverId]);

  // A machine that was stopped and has been started again since: reconnect by itself. Only a change to
  // running counts; the page may still show the state from before the stop when the console ends.
  const stoppedEnd =
    status.kind === "ended" && (status.reason === "machine_stopped" || status.reason === "server_stopped");
  const seenPower = useRef(powerState);
  useEffect(() => {
    const before = seenPower.current;
    seenPower.current = powerState;
    if (stoppedEnd && powerState === "running" && before !== "running") controls.current?.reconnect();
  }, [stoppedEnd, powerState]);

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="console-status">
        {status.kind === "open" && status.demo && (
          <span className="rounded bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900 dark:bg-amber-950 dark:text-amber-200">
            Demo
          </span>
        )}
        <p
          role="status"
          aria-live="polite"
          className={status.kind === "ended" ? TEXT_STYLES.error : undefined}
        >
          {status.kind === "connecting" && "Connecting to the console…"}
          {status.kind === "open" &&
            (status.demo
              ? `Connected to ${hostname}'s demo console: a pretend shell, no machine runs behind it.`
              : `Connected to ${hostname}'s serial console. Press Enter if the screen stays empty.`)}
          {status.kind === "reconnecting" && status.message}
          {status.kind === "ended" && status.message}
        </p>
      </div>
      <div
        ref={box}
        data-testid="console-terminal"
        className="h-[26rem] w-full overflow-hidden rounded bg-zinc-950 p-2"
      />
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => controls.current?.copy()}>Copy selection</Button>
        <Button onClick={() => controls.current?.paste()}>Paste</Button>
        {status.kind === "ended" && <Button onClick={() => controls.current?.reconnect()}>Reconnect</Button>}
        <Button
          onClick={() => {
            controls.current?.close();
            onClose();
          }}
        >
          Close console
        </Button>
        <span className={`text-xs ${TEXT_STYLES.muted}`}>
          {size.cols}×{size.rows}. A serial line carries no size: run{" "}
          <code>
            stty rows {size.rows} cols {size.cols}
          </code>{" "}
          in the machine for full-screen programs.
        </span>
      </div>
      {notice && (
        <p role="status" className={`text-xs ${TEXT_STYLES.muted}`}>
          {notice}
        </p>
      )}
    </div>
  );
}
