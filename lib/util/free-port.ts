import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Where loopback ports are drawn from: above the fixed ports tests and benchmarks use (3217, 3641.., 23600..). */
const LOWEST = 26_000;

/**
 * The start of the kernel's ephemeral range, from which it also picks the local port of every outgoing
 * connection. A port drawn there and released can be taken by a connection before the process told to listen
 * on it binds it (a node or wallet can take seconds to start): under load that is "address already in use".
 */
function ephemeralLow(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

/** Whether 127.0.0.1:`port` can be bound now (`port` 0: the port the OS chose, else `port`; 0 when taken). */
function tryBind(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" || error.code === "EACCES" ? resolve(0) : reject(error),
    );
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A free TCP port on 127.0.0.1 for a process about to listen there: drawn at random below the kernel's
 * ephemeral range (so no outgoing connection takes it meanwhile) and checked by binding it; the OS's choice
 * when that range leaves no room.
 */
export async function freeLoopbackPort(): Promise<number> {
  const highest = ephemeralLow() - 1;
  if (highest - LOWEST >= 1_000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const candidate = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
      if ((await tryBind(candidate)) === candidate) return candidate;
    }
  }
  const chosen = await tryBind(0);
  if (chosen > 0) return chosen;
  throw new Error("could not find a free loopback port");
}
