import { expect, type Page, test } from "@playwright/test";
import { type RunningApp, startApp } from "../support/app-server";
import { type CoreNode, startBcoin } from "../support/coin-nodes";
import { signUp } from "../support/dashboard";

/**
 * The deposit page for payments a watcher has seen: BTC read by the real UTXO watcher from bcoin in
 * regtest (explorer link, "seen, waiting for N confirmations"); Monero through the demo watcher (no
 * monerod here: it needs ~600 MB and minutes to mine its setup blocks), which drives the same page with
 * Monero's 10 confirmations and says why it waits for them.
 */
test.describe("the deposit page for payments a watcher has seen", () => {
  let bitcoin: CoreNode;
  let app: RunningApp;
  let miner: string;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    bitcoin = await startBcoin();
    miner = await bitcoin.rpc<string>("getnewaddress", [""], "payer");
    await bitcoin.rpc("generatetoaddress", [110, miner]);
    for (let i = 0; (await bitcoin.rpc<number>("getbalance", [], "payer")) < 50; i++) {
      if (i > 100) throw new Error("bcoin's wallet did not see its mined coins");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    app = await startApp({
      BTC_RPC_URL: bitcoin.rpcUrl,
      BTC_CHAIN: "regtest",
      EXPLORER_TX_URLS: "BTC=https://mempool.example/tx/{tx}",
      DEPOSIT_CONFIRMATIONS: "XMR:10",
      // Slow enough that each confirmation state stays on screen for a poll of the page or two.
      WATCHER_INTERVAL_MS: "1000",
    });
  });

  test.afterAll(async () => {
    await app?.stop();
    await bitcoin?.stop();
  });

  async function startDeposit(page: Page, amount: string, coin: RegExp) {
    await page.goto(`${app.url}/dashboard/topups`);
    await page.getByLabel("Amount in USD").fill(amount);
    await page.getByRole("radio", { name: coin }).check();
    await page.getByRole("button", { name: "Get a deposit address" }).click();
    await expect(page).toHaveURL(/\/dashboard\/topups\/[A-Za-z0-9_-]+$/);
    await expect(page.getByTestId("topup-phase")).toHaveText("Waiting for payment");
  }

  test("BTC seen by the watcher: its explorer link, then the confirmations it still waits for", async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await signUp(page, app.url);
    await startDeposit(page, "97", /Bitcoin/);
    // Read from the node: no simulated payment is offered.
    await expect(page.getByRole("button", { name: /Simulate paying/ })).toHaveCount(0);
    const address = (await page.getByTestId("deposit-address").textContent()) ?? "";
    expect(address).toMatch(/^bcrt1q/);
    await expect(page.getByTestId("deposit-amount")).toHaveText("0.00100000");

    const txid = await bitcoin.rpc<string>("sendtoaddress", [address, 0.001], "payer");
    await expect(page.getByTestId("topup-phase")).toHaveText("Payment received, confirming", {
      timeout: 20_000,
    });
    await expect(page.getByText("Seen, waiting for 2 more confirmations (0 of 2).")).toBeVisible();
    const link = page.getByRole("link", { name: txid });
    await expect(link).toHaveAttribute("href", `https://mempool.example/tx/${txid}`);
    await expect(link).toHaveAttribute("target", "_blank");
    await expect(page.getByText(/0\.00100000 BTC · 0 of 2 confirmations/)).toBeVisible();

    await bitcoin.rpc("generatetoaddress", [1, miner]);
    await expect(page.getByText("Seen, waiting for 1 more confirmation (1 of 2).")).toBeVisible({
      timeout: 20_000,
    });
    await bitcoin.rpc("generatetoaddress", [1, miner]);
    await expect(page.getByTestId("topup-phase")).toHaveText("Completed", { timeout: 20_000 });
    await expect(page.getByTestId("balance")).toHaveText("$97.00");
  });

  test("Monero: the page says why a seen payment waits for 10 confirmations", async ({ page }) => {
    test.setTimeout(120_000);
    await signUp(page, app.url);
    await startDeposit(page, "30", /Monero/);
    await page.getByRole("button", { name: /Simulate paying \d/ }).click();
    await expect(page.getByTestId("topup-phase")).toHaveText("Payment received, confirming", {
      timeout: 15_000,
    });
    await expect(page.getByText(/Seen, waiting for \d+ more confirmations? \(\d of 10\)\./)).toBeVisible();
    await expect(
      page.getByText(/Monero locks every received payment for 10 blocks .* so it is credited once unlocked/),
    ).toBeVisible();
    await expect(page.getByTestId("topup-phase")).toHaveText("Completed", { timeout: 30_000 });
  });
});
