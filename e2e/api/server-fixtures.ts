import { expect } from "vitest";
import { fund } from "./funding";
import { api, createAccount } from "./helpers";

/** Reads until `done` holds, every 150 ms, for 20 s at most (simulated host work takes a second or two). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`stuck at ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/**
 * A new account funded with 40 USD and one simulated server (pup, nl, Debian 13, plus `order`'s fields),
 * returned once it is active.
 */
export async function accountWithActiveServer<T extends { status: string }>(order: Record<string, unknown>) {
  const { apiKey } = await createAccount();
  await fund(apiKey, 40);
  const ordered = await api("/servers", {
    method: "POST",
    key: apiKey,
    body: { plan: "pup", location: "nl", os: "debian-13", ...order },
  });
  expect(ordered.status).toBe(201);
  const server = await until(
    async () => (await api(`/servers/${ordered.body.id}`, { key: apiKey })).body as unknown as T,
    (s) => s.status === "active",
  );
  return { apiKey, server };
}
