import { expect } from "vitest";
import { api } from "./helpers";

/**
 * Credits an account through the product's own path: a USDT (TRC-20) top-up, quoted at par, paid with the
 * demo watcher's simulated payment and polled until completed. `usd` must be within the top-up limits.
 */
export async function fund(key: string, usd: number): Promise<void> {
  const created = await api("/topups", { method: "POST", key, body: { amount: usd, coin: "USDTTRC" } });
  expect(created.status).toBe(201);
  const ref = created.body.ref as string;
  expect((await api(`/demo/topups/${ref}/pay`, { method: "POST", key, body: {} })).status).toBe(200);
  // Two confirmations, one per watcher pass: seconds, unless the machine is busy with other suites' work.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const topup = await api(`/topups/${ref}`, { key });
    if (topup.body.status === "completed") return;
    if (Date.now() > deadline) throw new Error(`funding top-up ${ref} did not complete`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const balanceOf = async (key: string) => (await api("/account", { key })).body.balance_usd as number;
