import { describe, expect, inject, it } from "vitest";
import { api, createAccount } from "../api/helpers";

const xmr = inject("monero");

async function rpc(url: string, method: string, params: Record<string, unknown> = {}) {
  const response = await fetch(`${url}/json_rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }),
  });
  const body = (await response.json()) as { result: Record<string, unknown>; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const mine = async (blocks: number) => {
  await rpc(xmr.daemonUrl, "generateblocks", { amount_of_blocks: blocks, wallet_address: xmr.payerAddress });
};
const pay = async (address: string, piconero: bigint) => {
  await rpc(xmr.payerUrl, "refresh");
  const sent = await rpc(xmr.payerUrl, "transfer", {
    destinations: [{ amount: Number(piconero), address }],
  });
  return sent.tx_hash as string;
};

type Topup = {
  ref: string;
  status: string;
  deposit_address: string;
  deposit_amount: string;
  credited_usd: number;
  confirmations_required: number;
  payments: { tx_hash: string; amount: string; confirmations: number }[];
};

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
const readTopup = (key: string, ref: string) => async () =>
  (await api(`/topups/${ref}`, { key })).body as unknown as Topup;
const balanceOf = async (key: string) => (await api("/account", { key })).body.balance_usd as number;

describe("Monero deposits read through a view-only monero-wallet-rpc (monerod regtest)", () => {
  it("a subaddress beyond index 200 is created in the wallet; the credit comes only once unlocked (10 blocks)", {
    timeout: 120_000,
  }, async () => {
    const { apiKey } = await createAccount();
    // Hand out (and give back) 200 addresses first, as a busy service would have.
    for (let i = 0; i < 200; i++) {
      const made = await api("/topups", { method: "POST", key: apiKey, body: { amount: 25, coin: "XMR" } });
      expect(made.status).toBe(201);
      await api(`/topups/${(made.body as unknown as Topup).ref}/cancel`, {
        method: "POST",
        key: apiKey,
        body: {},
      });
    }
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 160, coin: "XMR" } }))
      .body as unknown as Topup;
    expect(topup).toMatchObject({ deposit_amount: "1.00000000", confirmations_required: 10 });
    // The wallet derives the same subaddress from the view key: (0, 201) or beyond.
    const { index } = (await rpc(xmr.serviceWalletUrl, "get_address_index", {
      address: topup.deposit_address,
    })) as {
      index: { major: number; minor: number };
    };
    expect(index.major).toBe(0);
    expect(index.minor).toBeGreaterThan(200);

    const txid = await pay(topup.deposit_address, 1_000_000_000_000n);
    const seen = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length > 0);
    expect(seen.payments).toEqual([
      {
        tx_hash: txid,
        amount: "1.00000000",
        confirmations: 0,
        explorer_url: `https://xmrchain.net/tx/${txid}`,
        dropped: false,
        credited_usd: null,
        credited_parts: [],
      },
    ]);
    await mine(9);
    const locked = await waitFor(
      readTopup(apiKey, topup.ref),
      (t) => (t.payments[0]?.confirmations ?? 0) >= 9,
    );
    expect(locked).toMatchObject({ status: "pending", credited_usd: 0 });
    await mine(1);
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
    expect(done.credited_usd).toBe(160);
    expect(await balanceOf(apiKey)).toBe(160);
  });

  it("two payments to one subaddress are both credited", { timeout: 90_000 }, async () => {
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 160, coin: "XMR" } }))
      .body as unknown as Topup;
    const first = await pay(topup.deposit_address, 400_000_000_000n);
    const second = await pay(topup.deposit_address, 600_000_000_000n);
    await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length === 2);
    await mine(10);
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
    expect(done.credited_usd).toBe(160);
    expect(done.payments.map((p) => p.tx_hash).sort()).toEqual([first, second].sort());
    expect(await balanceOf(apiKey)).toBe(160);
  });
});
