/**
 * A DNS server on loopback for tests: it answers A and AAAA questions from a table the test gives, says
 * NXDOMAIN for names it does not know, and never answers names under a silent zone (as an attacker's name
 * server that drops queries does). It counts the questions it was asked, answered or not.
 */
import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";
import { decode, encode } from "dns-packet";

/** Names under this zone are never answered. */
export const SILENT_ZONE = "silent.test";
const NXDOMAIN = 3;
const RECURSION_AVAILABLE = 1 << 7;

export type TestDnsServer = {
  /** `127.0.0.1:<port>`, as a resolver's servers setting takes it. */
  address: string;
  /** Every name asked for, in the order asked (one entry per question). */
  asked: string[];
  close: () => Promise<void>;
};

/**
 * `records` maps a name (exactly, or `*.zone` for every name under it) to its addresses; IPv4 ones answer
 * A questions and IPv6 ones AAAA questions.
 */
export async function startDnsServer(records: Record<string, string[]>): Promise<TestDnsServer> {
  const socket = createSocket("udp4");
  const asked: string[] = [];
  const lookup = (name: string): string[] | undefined => {
    const exact = records[name];
    if (exact) return exact;
    const labels = name.split(".");
    for (let i = 1; i < labels.length; i++) {
      const wildcard = records[`*.${labels.slice(i).join(".")}`];
      if (wildcard) return wildcard;
    }
    return undefined;
  };
  socket.on("message", (message, from) => {
    let query: ReturnType<typeof decode>;
    try {
      query = decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    asked.push(name);
    if (name === SILENT_ZONE || name.endsWith(`.${SILENT_ZONE}`)) return;
    const addresses = lookup(name);
    const wanted =
      question.type === "AAAA" ? (a: string) => a.includes(":") : (a: string) => !a.includes(":");
    const answers = (addresses ?? [])
      .filter(wanted)
      .map((data) => ({ type: question.type as "A" | "AAAA", name: question.name, ttl: 5, data }));
    const reply = encode({
      type: "response",
      id: query.id,
      flags: RECURSION_AVAILABLE | (addresses ? 0 : NXDOMAIN),
      questions: [question],
      answers,
    });
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
