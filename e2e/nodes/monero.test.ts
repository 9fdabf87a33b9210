import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, inject, it } from "vitest";
import { api, createAccount } from "../api/helpers";
import { spawnWalletRpc, stopChild, waitForWalletRpc } from "../support/coin-nodes";

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
/** How many credited payments the Monero watcher has flagged for the operator (a reorg took their block). */
const flaggedXmr = async () =>
  ((await api("/health")).body.watchers as { name: string; flagged_payments: number }[]).find(
    (watcher) => watcher.name === "xmr:monero",
  )?.flagged_payments;

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

  it("a new top-up makes only its own subaddress, and transfers are read from the last height", {
    timeout: 60_000,
  }, async () => {
    const recorder = async (command: Record<string, unknown>) => {
      const response = await fetch(xmr.walletProxyControl, { method: "POST", body: JSON.stringify(command) });
      return (await response.json()) as { recorded: { method: string; params: Record<string, unknown> }[] };
    };
    const { apiKey } = await createAccount();
    await recorder({ record: "start" });
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 25, coin: "XMR" } }))
      .body as unknown as Topup;
    // A few of the watcher's polls (every 500 ms here).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const { recorded } = await recorder({ record: "stop" });
    const { index } = (await rpc(xmr.serviceWalletUrl, "get_address_index", {
      address: topup.deposit_address,
    })) as { index: { minor: number } };
    const { height } = (await rpc(xmr.serviceWalletUrl, "get_height")) as { height: number };
    const calls = (method: string) => recorded.filter((call) => call.method === method);
    console.log(
      `wallet-rpc calls for one new top-up (subaddress ${index.minor}) and the polls after it: ` +
        JSON.stringify(
          Object.fromEntries([...new Set(recorded.map((c) => c.method))].map((m) => [m, calls(m).length])),
        ),
    );
    // One subaddress made, the new one: the wallet already had every one before it.
    expect(calls("create_address").map((call) => call.params)).toEqual([{ account_index: 0, count: 1 }]);
    // Subaddresses are looked up one index at a time, never listed.
    for (const call of calls("get_address")) {
      expect(call.params).toMatchObject({ account_index: 0 });
      expect(call.params.address_index).toHaveLength(1);
    }
    expect(
      calls("get_address").some((call) => (call.params.address_index as number[])[0] === index.minor),
    ).toBe(true);
    // Each poll reads the transfers above a height a little below the wallet's (its reorg window of 30
    // blocks), not the whole history.
    const reads = calls("get_transfers");
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const read of reads) {
      expect(read.params).toMatchObject({ in: true, pool: true, account_index: 0, filter_by_height: true });
      expect(read.params.min_height as number).toBeGreaterThanOrEqual(height - 1 - 30 - 5);
      expect(read.params.min_height as number).toBeLessThan(height);
    }
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

  let restarted: ChildProcess | undefined;
  afterAll(async () => {
    if (restarted) await stopChild(restarted, 20_000);
  });

  it("a wallet-rpc killed before storing its wallet loses subaddresses: the watcher makes them again", {
    timeout: 180_000,
  }, async () => {
    expect(await flaggedXmr()).toBe(0);
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 160, coin: "XMR" } }))
      .body as unknown as Topup;
    const { index } = (await rpc(xmr.serviceWalletUrl, "get_address_index", {
      address: topup.deposit_address,
    })) as { index: { minor: number } };
    // Beyond the 200 subaddresses a wallet recognises past the last one it stored.
    expect(index.minor).toBeGreaterThan(200);

    // No `store`: the wallet file on disk knows none of the subaddresses made since it was generated.
    process.kill(xmr.serviceWallet.pid, "SIGKILL");
    restarted = spawnWalletRpc(xmr.serviceWallet.args);
    await waitForWalletRpc(xmr.serviceWalletUrl, restarted);
    await rpc(xmr.serviceWalletUrl, "open_wallet", { filename: "service", password: "" });
    await expect(
      rpc(xmr.serviceWalletUrl, "get_address", { account_index: 0, address_index: [index.minor] }),
    ).rejects.toThrow(/out of bound/);

    // Paid and mined while the wallet does not know the subaddress; its refresh passes over the block.
    const txid = await pay(topup.deposit_address, 1_000_000_000_000n);
    await mine(1);
    await rpc(xmr.serviceWalletUrl, "refresh");
    const seen = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length > 0, 90_000);
    expect(seen.payments[0]?.tx_hash).toBe(txid);
    await mine(10);
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed", 60_000);
    expect(done.credited_usd).toBe(160);
    expect(await balanceOf(apiKey)).toBe(160);
    // Payments credited before the restart were out of the wallet's sight for a while: none is flagged.
    expect(await flaggedXmr()).toBe(0);
  });

  it("a credited payment whose block a reorg takes away is flagged for the operator, never debited", {
    timeout: 180_000,
  }, async () => {
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 160, coin: "XMR" } }))
      .body as unknown as Topup;
    const txid = await pay(topup.deposit_address, 1_000_000_000_000n);
    await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length > 0, 60_000);
    await mine(10);
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed", 60_000);
    expect(done.credited_usd).toBe(160);
    const flaggedBefore = (await flaggedXmr()) as number;
    expect(flaggedBefore).toBeTypeOf("number");

    // The block holding the payment and those above it are popped; the payment, back in the pool, is
    // flushed; and a longer chain without it is mined: the wallet reorganises onto it.
    const { transfer } = (await rpc(xmr.serviceWalletUrl, "get_transfer_by_txid", {
      txid,
      account_index: 0,
    })) as { transfer: { height: number } };
    const { count } = (await rpc(xmr.daemonUrl, "get_block_count")) as { count: number };
    const popped = count - transfer.height;
    expect(popped).toBeGreaterThanOrEqual(11);
    const pop = await fetch(`${xmr.daemonUrl}/pop_blocks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nblocks: popped }),
    });
    expect(((await pop.json()) as { status: string }).status).toBe("OK");
    await rpc(xmr.daemonUrl, "flush_txpool", { txids: [txid] });
    await mine(popped + 2);
    await rpc(xmr.serviceWalletUrl, "refresh");

    const after = await waitFor(
      readTopup(apiKey, topup.ref),
      (t) => (t.payments[0]?.confirmations ?? 1) === 0,
      60_000,
    );
    // The credit stands (a credit is never taken back); the operator is told instead.
    expect(after).toMatchObject({ status: "completed", credited_usd: 160 });
    expect(await balanceOf(apiKey)).toBe(160);
    expect(await waitFor(flaggedXmr, (flagged) => (flagged ?? 0) > flaggedBefore, 30_000)).toBe(
      flaggedBefore + 1,
    );
  });
});
