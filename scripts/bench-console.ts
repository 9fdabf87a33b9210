/**
 * The console on real machines (root, libvirtd running, `npm run build`, `npm run guest:build-tiny`; it boots
 * VMs, so run it under `flock /work/vm.lock`):
 *
 *  1. ticket request -> first console byte, in Chromium along the dashboard's own path (the ticket through
 *     the BFF with the session cookie, then the WebSocket from the page; Enter is sent on open so the guest's
 *     getty answers), BENCH_CONSOLE_RUNS times (default 10): p50 and max, with the ticket's and the
 *     upgrade's share. Target: p50 <= 1 s.
 *  2. keystroke echo: one character at a time to the tiny guest's shell and back, BENCH_KEYS times (default
 *     200), p50 and p99, on this machine's host (qemu:///system) and on a second host reached over
 *     qemu+libssh (this machine's libvirtd behind a local sshd, as the vm suite makes one): through the whole
 *     gateway (WebSocket, app, socat, virsh), and through socat and virsh alone (the app's console module
 *     driven in this process: no WebSocket, HTTP or app in between).
 *  3. BENCH_CONSOLES consoles (default 20) open at once on as many tiny guests, each typing a line a second:
 *     the app's reads measured as `bench:reads` measures them (scripts/read-load.ts: 32 connections, a 3 s
 *     warm-up, 3 windows of 3 s per route, the routes alternating; an account with 20 servers, like its
 *     measured one) with no console open and with all of them open, and the memory each open console costs
 *     (the app's growth, socat and virsh).
 *  4. BENCH_STALL_CONSOLES consoles (default 4) whose clients read nothing for BENCH_STALL_SECONDS (60): each
 *     guest floods its serial line (`yes`) and each client sends input as fast as its socket takes it, with
 *     its own socket paused; every second the app's, virsh's and socat's memory, and how each session ended.
 *     What must hold: memory per console flat (bounded), not growing with the time the client stays behind.
 *
 * Its domains are `vpsq-<id>` (256 MB tiny guests) with a pool of their own, all removed at the end.
 *
 *   flock /work/vm.lock npm run bench:console
 *   BENCH_CONSOLE_STEPS=stall flock /work/vm.lock npm run bench:console    # step 4 alone, on BENCH_STALL_CONSOLES guests
 *   BENCH_CONSOLE_STEPS=stall-demo npm run bench:console                  # step 4 on the simulated provisioner (no VM)
 */
import { existsSync, readFileSync } from "node:fs";
import { chromium } from "@playwright/test";
import { startApp } from "../e2e/support/app-server";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../e2e/support/chromium";
import {
  type ConsoleConnection,
  logInOnConsole,
  openConsole,
  requestTicket,
} from "../e2e/support/console-client";
import { startLocalSshd } from "../e2e/vm/sshd";
import { openSerialConsole } from "../lib/servers/libvirt/console";
import {
  apiCaller,
  appPidOf,
  fundedAccount,
  processes,
  removeMachines,
  rssMb,
  startBenchApp,
  virsh,
} from "./bench-host";
import { percentile } from "./percentile";
import { load, type RouteSummary, type Sample, summarize } from "./read-load";

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 10);
const KEYS = Number(process.env.BENCH_KEYS ?? 200);
const CONSOLES = Number(process.env.BENCH_CONSOLES ?? 20);
const READ_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const READ_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const READ_WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const PREFIX = "vpsq-";
const POOL = `${PREFIX}disks`;
const TINY_IMAGES = process.env.TINY_GUEST_DIR ?? "/var/lib/vps/test-images";
const SSH_PORT_BASE = Number(process.env.VM_TEST_SSH_PORT_BASE ?? 23600) + 1200;
/** The second host's sshd, just below the forwarded ports. */
const SSHD_PORT = SSH_PORT_BASE - 1;
const MEMORY_MB = 256;
const STEPS = process.env.BENCH_CONSOLE_STEPS ?? "all";
const STALL_CONSOLES = Number(process.env.BENCH_STALL_CONSOLES ?? 4);
const STALL_SECONDS = Number(process.env.BENCH_STALL_SECONDS ?? 60);

type Guest = { id: number; hostname: string; password: string };

const ms = (value: number) => `${Math.round(value)} ms`;

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/**
 * The reads `bench:reads` measures for an account with 20 servers, as it measures them: each route's
 * windows alternating with the others', after a warm-up when asked.
 */
async function reads(base: string, key: string, serverId: number, warmup: boolean): Promise<RouteSummary[]> {
  const routes: Record<string, { path: string; key?: string }> = {
    "/health": { path: "/api/v1/health" },
    "/account": { path: "/api/v1/account", key },
    "/servers": { path: "/api/v1/servers", key },
    "/servers/{id}": { path: `/api/v1/servers/${serverId}`, key },
    "/servers/{id}/credentials": { path: `/api/v1/servers/${serverId}/credentials`, key },
  };
  if (warmup) {
    for (const route of Object.values(routes)) await load(`${base}${route.path}`, route.key, READ_WARMUP, 32);
  }
  const samples = new Map<string, Sample[]>(Object.keys(routes).map((name) => [name, []]));
  for (let round = 0; round < READ_ROUNDS; round++) {
    for (const [name, route] of Object.entries(routes)) {
      samples.get(name)?.push(await load(`${base}${route.path}`, route.key, READ_SECONDS, 32));
    }
  }
  return [...samples].map(([name, list]) => summarize(name, list));
}

/** bench:reads' columns for the two runs side by side. */
function readsTable(before: RouteSummary[], during: RouteSummary[]): string {
  const cells = (r: RouteSummary | undefined) =>
    r ? `${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.p99RunOpen}` : "- | - | - | -";
  const lines = [
    "| route | no console: req/s | p50 ms | p99 ms, worst window | p99 ms, open conn., whole run " +
      `| ${CONSOLES} consoles open: req/s | p50 ms | p99 ms, worst window | p99 ms, open conn., whole run |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const route of before) {
    lines.push(
      `| GET ${route.name} | ${cells(route)} | ${cells(during.find((r) => r.name === route.name))} |`,
    );
  }
  return lines.join("\n");
}

/** `keys` keystrokes, one character each, timed until the shell has echoed it. */
async function echoes(
  type: (text: string) => void,
  waitFor: (text: string, from: number) => Promise<void>,
  length: () => number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < KEYS; i++) {
    const char = "abcdefghijklmnopqrstuvwxyz"[i % 26] as string;
    const from = length();
    const t0 = performance.now();
    type(char);
    await waitFor(char, from);
    times.push(performance.now() - t0);
    if (i % 50 === 49) {
      type("\x15");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return times;
}

/** Through the gateway: a ticket, the WebSocket, a root login, the echoes; then logged out and closed. */
async function gatewayEchoes(appUrl: string, key: string, guest: Guest): Promise<number[]> {
  const ticket = await requestTicket(appUrl, key, guest.id);
  const session = await openConsole(ticket.body.websocket_url, ticket.body.ticket);
  await logInOnConsole(session, guest.hostname, guest.password);
  const times = await echoes(
    (text) => session.type(text),
    (text, from) => session.waitFor(text, 5_000, from),
    () => session.output().length,
  );
  session.type("\x15exit\r");
  await new Promise((r) => setTimeout(r, 500));
  session.ws.close();
  await session.closed;
  return times;
}

/**
 * Through socat and virsh alone: the app's console module (lib/servers/libvirt/console.ts) driven here, so
 * nothing but its two processes (and, remotely, libvirt's transport) lies between keystroke and echo.
 */
async function directEchoes(uri: string, guest: Guest): Promise<number[]> {
  let output = "";
  let wake: (() => void) | undefined;
  const stream = openSerialConsole(
    { uri, domain: `${PREFIX}${guest.id}`, state: async () => "running" },
    {
      data: (chunk) => {
        output += chunk.toString("latin1");
        wake?.();
      },
      end: () => wake?.(),
    },
  );
  const waitFor = async (text: string, from: number, timeoutMs = 5_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!output.slice(from).includes(text)) {
      if (Date.now() > deadline) throw new Error(`no "${text}" on the console of ${guest.hostname}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  const type = (text: string) => stream.write(Buffer.from(text));
  try {
    for (let tries = 0; ; tries++) {
      const from = output.length;
      type("\r");
      try {
        await waitFor(`${guest.hostname} login: `, from, 3_000);
        break;
      } catch (error) {
        if (tries >= 20) throw error;
      }
    }
    let from = output.length;
    type("root\r");
    await waitFor("Password: ", from, 20_000);
    from = output.length;
    type(`${guest.password}\r`);
    await waitFor("# ", from, 20_000);
    const times = await echoes(
      type,
      (text, at) => waitFor(text, at),
      () => output.length,
    );
    type("\x15exit\r");
    await new Promise((r) => setTimeout(r, 500));
    return times;
  } finally {
    stream.close();
  }
}

/** Resident memory in MB of `pid`, or 0 once it is gone. */
const rssOrZero = (pid: number) => {
  try {
    return rssMb(pid);
  } catch {
    return 0;
  }
};

/**
 * 4. Consoles whose clients read nothing: on real guests each floods its serial line with `yes`; on the demo
 * console the client's own input is what echoes (`help` answers 36 times its length). Each client sends as
 * fast as its socket takes it (at most 1 MiB waiting in the client) and never reads. Prints a line every 5 s
 * and a summary: the memory of the app, of virsh and of socat at the start, at their peak and at the end, per
 * console, and how each session ended (from the app's log).
 */
async function stalled(
  app: { url: string; logs: () => string },
  appPid: number | undefined,
  key: string,
  guests: Guest[],
  real: boolean,
): Promise<void> {
  const sessions: { session: ConsoleConnection; id: number; server: number }[] = [];
  for (const guest of guests) {
    const ticket = await requestTicket(app.url, key, guest.id);
    const session = await openConsole(ticket.body.websocket_url, ticket.body.ticket);
    if (real) {
      await logInOnConsole(session, guest.hostname, guest.password);
      session.type("yes 0123456789abcdefghijklmnopqrstuvwxyz\r");
      await session.waitFor("0123456789abcdefghijklmnopqrstuvwxyz\r\n0123456789", 20_000);
    } else {
      await session.waitFor("# ");
    }
    sessions.push({ session, id: ticket.body.session_id, server: guest.id });
  }
  const helpers = () =>
    processes().filter(
      (p) =>
        guests.some((guest) => new RegExp(`^virsh .* console ${PREFIX}${guest.id} `).test(`${p.args} `)) ||
        p.args.startsWith("socat -d -d STDIO PTY"),
    );
  const sample = () => {
    const list = helpers();
    const sum = (filter: (args: string) => boolean) =>
      list.filter((p) => filter(p.args)).reduce((total, p) => total + rssOrZero(p.pid), 0);
    return {
      app: appPid ? rssOrZero(appPid) : Number.NaN,
      virsh: sum((args) => args.startsWith("virsh")),
      socat: sum((args) => args.startsWith("socat")),
    };
  };
  const input = Buffer.from(real ? "a".repeat(16 * 1024) : "help\r".repeat(3_000));
  for (const { session } of sessions) {
    (session.ws as unknown as { _socket: { pause: () => void } })._socket.pause();
  }
  const flood = setInterval(() => {
    for (const { session } of sessions) {
      if (session.ws.readyState === session.ws.OPEN && session.ws.bufferedAmount < 1024 * 1024) {
        session.ws.send(input);
      }
    }
  }, 20);
  const closedLine = (id: number, server: number) =>
    new RegExp(`console session ${id} \\(server ${server}\\) closed: (\\w+)`).exec(app.logs())?.[1];
  const first = sample();
  const peak = { ...first };
  const endedAt = new Map<number, number>();
  const started = Date.now();
  console.log(
    `\n${sessions.length} consoles whose clients read nothing (${real ? "guests flooding ttyS0 with yes" : "demo shell, input echoed 36x"}), ` +
      `${STALL_SECONDS} s; MB:\n second | app | virsh (all) | socat (all) | open`,
  );
  try {
    for (let second = 1; second <= STALL_SECONDS; second++) {
      await new Promise((r) => setTimeout(r, 1_000));
      const now = sample();
      peak.app = Math.max(peak.app, now.app);
      peak.virsh = Math.max(peak.virsh, now.virsh);
      peak.socat = Math.max(peak.socat, now.socat);
      for (const { id, server } of sessions) {
        if (!endedAt.has(id) && closedLine(id, server)) endedAt.set(id, (Date.now() - started) / 1000);
      }
      if (second % 5 === 0) {
        console.log(
          ` ${String(second).padStart(6)} | ${now.app.toFixed(0)} | ${now.virsh.toFixed(1)} | ${now.socat.toFixed(1)} | ${sessions.length - endedAt.size}`,
        );
      }
    }
  } finally {
    clearInterval(flood);
    for (const { session } of sessions) session.ws.terminate();
  }
  const last = sample();
  const perConsole = (value: number) => (value / sessions.length).toFixed(1);
  console.log(
    `app RSS ${first.app.toFixed(0)} MB at the start, ${peak.app.toFixed(0)} MB at the peak, ${last.app.toFixed(0)} MB at the end ` +
      `(peak growth ${perConsole(peak.app - first.app)} MB a console)`,
  );
  if (real) {
    console.log(
      `virsh ${perConsole(first.virsh)} MB a console at the start, ${perConsole(peak.virsh)} MB at the peak; ` +
        `socat ${perConsole(first.socat)} -> ${perConsole(peak.socat)} MB`,
    );
  }
  console.log(
    `sessions: ${sessions
      .map(({ id, server }) => {
        const reason = closedLine(id, server);
        return reason ? `${id} ${reason} after ${endedAt.get(id)?.toFixed(0) ?? "?"} s` : `${id} open`;
      })
      .join(", ")}`,
  );
}

/** Step 4 alone on the simulated provisioner: no VM, no lock. */
async function stalledOnDemo(): Promise<void> {
  const app = await startApp({
    PROVISION_DELAY_SECONDS: "1",
    CONSOLE_MAX_PER_ACCOUNT: String(STALL_CONSOLES),
    RATE_LIMIT_ACCOUNT_CREATE: "100/1h",
  });
  try {
    const appPid = processes().find((p) =>
      p.args.includes(`scripts/server.mjs -H 127.0.0.1 -p ${new URL(app.url).port}`),
    )?.pid;
    const call = apiCaller(app.url);
    const { key } = await fundedAccount(call, 5 * STALL_CONSOLES + 25, "BTC");
    const guests: Guest[] = [];
    for (let i = 0; i < STALL_CONSOLES; i++) {
      const server = await call("/servers", key, "POST", { plan: "pup", location: "nl", os: "debian-12" });
      guests.push({ id: server.id as number, hostname: server.hostname as string, password: "" });
    }
    for (const guest of guests) {
      while ((await call(`/servers/${guest.id}`, key)).status !== "active")
        await new Promise((r) => setTimeout(r, 500));
    }
    await stalled(app, appPid, key, guests, false);
  } finally {
    await app.stop();
  }
}

const echoLine = (label: string, times: number[]) =>
  `${label.padEnd(40)} p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`;

async function main() {
  if (STEPS === "stall-demo") return stalledOnDemo();
  const stallOnly = STEPS === "stall";
  const machines = stallOnly ? STALL_CONSOLES : CONSOLES;
  if (!existsSync(`${TINY_IMAGES}/debian-12.qcow2`)) {
    throw new Error(`no tiny test guest in ${TINY_IMAGES}: run \`npm run guest:build-tiny\` first`);
  }
  removeMachines(PREFIX);
  // The second host: this machine's libvirtd reached over qemu+libssh through a local sshd.
  const sshd = await startLocalSshd(SSHD_PORT);
  const app = await startBenchApp(
    {
      machines: machines + 1,
      memoryMb: MEMORY_MB,
      vcpus: 1,
      diskGb: 1,
      prefix: PREFIX,
      images: TINY_IMAGES,
      disksDir: "/var/lib/vps/bench-console-servers",
      sshPortBase: SSH_PORT_BASE,
    },
    {
      HYPERVISORS: JSON.stringify([
        {
          name: "bench-1",
          location: "nl",
          uri: "qemu:///system",
          memory_mb: MEMORY_MB * machines,
          vcpus: machines,
          disk_gb: machines,
        },
        { name: "bench-remote", location: "se", uri: sshd.uri, memory_mb: MEMORY_MB, vcpus: 1, disk_gb: 1 },
      ]),
      SERVER_BOOT_TIMEOUT_SECONDS: "600",
      CONSOLE_MAX_PER_ACCOUNT: String(machines + 1),
      WATCHER_INTERVAL_MS: "1000",
      RATE_LIMIT_ACCOUNT_CREATE: "100/1h",
    },
  );
  const appPid = appPidOf(app.url);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
  const open: ConsoleConnection[] = [];
  try {
    const call = apiCaller(app.url);
    const { key, loginToken } = await fundedAccount(call, 5 * (machines + 1) + 25, "BTC");

    const started = Date.now();
    const order = async (location: string, hostname: string): Promise<Guest> => {
      const server = await call("/servers", key, "POST", {
        plan: "pup",
        location,
        os: "debian-12",
        hostname,
      });
      if (typeof server.id !== "number") throw new Error(`order refused: ${JSON.stringify(server)}`);
      return { id: server.id, hostname, password: server.root_password as string };
    };
    const servers: Guest[] = [];
    for (let i = 0; i < machines; i++) servers.push(await order("nl", `bench-${i}`));
    const remote = stallOnly ? undefined : await order("se", "bench-far");
    for (const server of remote ? [...servers, remote] : servers) {
      for (;;) {
        const status = (await call(`/servers/${server.id}`, key)).status;
        if (status === "active") break;
        if (status !== "provisioning") throw new Error(`server ${server.id} is ${status}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    console.log(
      `${machines} tiny guests (${MEMORY_MB} MB) here${remote ? " and one on the qemu+libssh host" : ""} up in ` +
        `${Math.round((Date.now() - started) / 1000)} s; load ${loadAverage()}`,
    );
    if (!remote) {
      await stalled(app, appPid, key, servers, true);
      return;
    }
    const first = servers[0] as Guest;

    // 1. Ticket -> first byte, in the browser, through the BFF.
    const page = await browser.newPage();
    await page.goto(`${app.url}/signin`);
    const signedIn = await page.evaluate(async (token) => {
      const response = await fetch("/bff/sign-in", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ login_token: token }),
      });
      return response.status;
    }, loginToken);
    if (signedIn !== 200) throw new Error(`browser sign-in answered ${signedIn}`);
    const marks: { ticket: number; open: number; firstByte: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      marks.push(
        await page.evaluate(async (id) => {
          const t0 = performance.now();
          const response = await fetch(`/bff/servers/${id}/console`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          });
          const ticket = await response.json();
          const ticketAt = performance.now() - t0;
          return await new Promise<{ ticket: number; open: number; firstByte: number }>((resolve, reject) => {
            const url = new URL(new URL(ticket.websocket_url).pathname, window.location.href);
            url.protocol = "ws:";
            const ws = new WebSocket(url, [ticket.protocol, `ticket.${ticket.ticket}`]);
            ws.binaryType = "arraybuffer";
            let openAt = 0;
            const timer = setTimeout(() => reject(new Error("no console byte within 15 s")), 15_000);
            ws.onopen = () => {
              openAt = performance.now() - t0;
              ws.send(new TextEncoder().encode("\r"));
            };
            ws.onmessage = (event) => {
              if (typeof event.data === "string") return;
              clearTimeout(timer);
              resolve({ ticket: ticketAt, open: openAt, firstByte: performance.now() - t0 });
              ws.close();
            };
            ws.onclose = (event) => reject(new Error(`closed ${event.code}`));
          });
        }, first.id),
      );
      // A person opens a console at no particular moment: QEMU's pty backend looks for a newly connected
      // client once a second, counted from the last disconnect, so evenly spaced runs would all land at
      // one phase of that second.
      await new Promise((r) => setTimeout(r, 1_000 + Math.random() * 2_000));
    }
    const firstBytes = marks.map((m) => m.firstByte);
    console.log(
      `\nticket request -> first console byte in Chromium (${RUNS} runs): p50 ${ms(percentile(firstBytes, 50))}, ` +
        `max ${ms(Math.max(...firstBytes))} (target p50 <= 1000 ms); ticket p50 ${ms(
          percentile(
            marks.map((m) => m.ticket),
            50,
          ),
        )}, ` +
        `upgraded p50 ${ms(
          percentile(
            marks.map((m) => m.open),
            50,
          ),
        )}`,
    );
    await page.close();

    // 2. Keystroke echo at the guest's shell: through the gateway, then through socat and virsh alone, on
    // this machine's host and on the qemu+libssh one.
    const echoRuns: [string, number[]][] = [
      ["via the gateway, qemu:///system", await gatewayEchoes(app.url, key, first)],
      ["via the gateway, qemu+libssh", await gatewayEchoes(app.url, key, remote)],
      ["socat and virsh alone, qemu:///system", await directEchoes("qemu:///system", first)],
      ["socat and virsh alone, qemu+libssh", await directEchoes(sshd.uri, remote)],
    ];
    console.log(`\nkeystroke echo at the tiny guest's shell (${KEYS} keys each), load ${loadAverage()}:`);
    for (const [label, times] of echoRuns) console.log(echoLine(label, times));

    // 3. Reads with no console open, then with every local server's console open and typing.
    const before = await reads(app.url, key, first.id, true);
    const appBefore = appPid ? rssMb(appPid) : Number.NaN;
    for (const server of servers) {
      const granted = await requestTicket(app.url, key, server.id);
      open.push(await openConsole(granted.body.websocket_url, granted.body.ticket));
    }
    const typing = setInterval(() => {
      for (const [index, session] of open.entries()) session.type(`echo ${index}\r`);
    }, 1_000);
    await new Promise((r) => setTimeout(r, 5_000));
    const helpers = processes().filter(
      (p) => /^virsh .* console vpsq-/.test(p.args) || p.args.startsWith("socat -d -d STDIO PTY"),
    );
    const helperMb = helpers.reduce((sum, p) => sum + rssMb(p.pid), 0);
    const appAfter = appPid ? rssMb(appPid) : Number.NaN;
    const during = await reads(app.url, key, first.id, false);
    clearInterval(typing);
    const answering = open.filter((session) => session.output().includes("echo ")).length;
    console.log(
      `\n${CONSOLES} consoles open at once (${answering} answering), ${helpers.length} helper processes ` +
        `(virsh + socat, ${(helperMb / Math.max(1, CONSOLES)).toFixed(1)} MB each console); app RSS ` +
        `${appBefore.toFixed(0)} -> ${appAfter.toFixed(0)} MB (${((appAfter - appBefore) / CONSOLES).toFixed(2)} MB a console)`,
    );
    console.log(
      `memory per open console: ${((appAfter - appBefore) / CONSOLES + helperMb / CONSOLES).toFixed(1)} MB`,
    );
    console.log(
      `\nreads as bench:reads measures them (32 connections, a ${READ_WARMUP} s warm-up, ${READ_ROUNDS} windows ` +
        `of ${READ_SECONDS} s per route), load ${loadAverage()}:`,
    );
    console.log(readsTable(before, during));
    for (const session of open.splice(0)) session.ws.close();
    await new Promise((r) => setTimeout(r, 2_000));

    // 4. Consoles whose clients read nothing.
    await stalled(app, appPid, key, servers.slice(0, STALL_CONSOLES), true);
  } catch (error) {
    console.error(`the app's last words:\n${app.logs().split("\n").slice(-30).join("\n")}`);
    throw error;
  } finally {
    for (const session of open) session.ws.close();
    await browser.close();
    await app.stop();
    await sshd.stop();
    removeMachines(PREFIX);
    virsh("pool-destroy", POOL);
    virsh("pool-undefine", POOL);
  }
}

await main();
