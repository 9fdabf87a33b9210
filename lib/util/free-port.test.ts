import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freeLoopbackPort } from "./free-port";

const listen = (port: number) =>
  new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

describe("free loopback ports", () => {
  it("are drawn below the kernel's ephemeral range, where no outgoing connection takes them, and can be bound", async () => {
    const ephemeralLow = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    const ports = [];
    for (let draw = 0; draw < 20; draw++) ports.push(await freeLoopbackPort());
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(26_000);
      expect(port).toBeLessThan(ephemeralLow);
      const server = await listen(port);
      await new Promise((resolve) => server.close(resolve));
    }
    // Random draws, not one port handed out again and again.
    expect(new Set(ports).size).toBeGreaterThan(15);
  });
});
