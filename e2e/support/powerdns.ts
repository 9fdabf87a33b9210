/**
 * A PowerDNS Authoritative Server for the tests: Debian's `pdns_server` with the sqlite3 backend, in a folder
 * of its own, answering DNS and its HTTP API on loopback ports only. The app writes reverse zones to it; the
 * tests add the forward records a name's check needs, and ask it for PTRs as any resolver would.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export type PowerDns = {
  apiUrl: string;
  apiKey: string;
  /** Where it answers DNS: `127.0.0.1:<port>`. */
  dns: string;
  pid: number;
  stop: () => Promise<void>;
};

const SCHEMA = "/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql";

/** A TCP port nothing listens on now (and, for DNS, its UDP twin is almost surely free too). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export async function startPowerDns(): Promise<PowerDns> {
  if (!existsSync("/usr/sbin/pdns_server") || !existsSync(SCHEMA)) {
    throw new Error("PowerDNS is missing: apt-get install pdns-server pdns-backend-sqlite3 sqlite3");
  }
  const dir = mkdtempSync(path.join(tmpdir(), "vps-pdns-"));
  const database = path.join(dir, "pdns.sqlite3");
  execFileSync("sqlite3", [database], { input: execFileSync("cat", [SCHEMA]) });
  const [dnsPort, apiPort] = [await freePort(), await freePort()];
  const apiKey = `test-${process.pid}-${Date.now()}`;
  writeFileSync(
    path.join(dir, "pdns.conf"),
    [
      "launch=gsqlite3",
      `gsqlite3-database=${database}`,
      "local-address=127.0.0.1",
      `local-port=${dnsPort}`,
      "api=yes",
      `api-key=${apiKey}`,
      "webserver=yes",
      "webserver-address=127.0.0.1",
      `webserver-port=${apiPort}`,
      "webserver-allow-from=127.0.0.0/8",
      `socket-dir=${dir}`,
      "guardian=no",
      "daemon=no",
      "disable-syslog=yes",
      "loglevel=3",
      // Every answer read fresh from the database: a test asks right after the app wrote.
      "cache-ttl=0",
      "query-cache-ttl=0",
      "negquery-cache-ttl=0",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn("/usr/sbin/pdns_server", [`--config-dir=${dir}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ok = await fetch(`${apiUrl}/api/v1/servers/localhost`, { headers: { "X-API-Key": apiKey } }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PowerDNS did not start: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    apiUrl,
    apiKey,
    dns: `127.0.0.1:${dnsPort}`,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGCONT");
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Adds (or replaces) an A or AAAA record in a forward zone, creating the zone if needed. */
export async function addForwardRecord(
  pdns: Pick<PowerDns, "apiUrl" | "apiKey">,
  name: string,
  address: string,
) {
  const zone = `${name.split(".").slice(-2).join(".")}.`;
  const headers = { "X-API-Key": pdns.apiKey, "Content-Type": "application/json" };
  const base = `${pdns.apiUrl}/api/v1/servers/localhost/zones`;
  const found = await fetch(`${base}/${zone}`, { headers });
  if (!found.ok) {
    const created = await fetch(base, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: zone, kind: "Native", nameservers: [] }),
    });
    if (!created.ok && created.status !== 409) throw new Error(`zone ${zone}: ${await created.text()}`);
  }
  const type = address.includes(":") ? "AAAA" : "A";
  const patched = await fetch(`${base}/${zone}`, {
    method: "PATCH",
    headers,
    body: JSON.stringify({
      rrsets: [
        {
          name: `${name}.`,
          type,
          ttl: 60,
          changetype: "REPLACE",
          records: [{ content: address, disabled: false }],
        },
      ],
    }),
  });
  if (!patched.ok) throw new Error(`${type} ${name}: ${await patched.text()}`);
}
