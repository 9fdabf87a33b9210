import { expect, type Page, test } from "@playwright/test";
import { createTestClient, createWalletClient, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type LocalChain, startAnvil } from "@/lib/demo-chain/anvil";
import { type RunningApp, startApp } from "../support/app-server";
import { signUp } from "../support/dashboard";

/** Starts a classic-coin top-up from the form and lands on its deposit page. */
async function startDeposit(page: Page, amount: string, coin: RegExp, baseUrl = "") {
  await page.goto(`${baseUrl}/dashboard/topups`);
  await page.getByLabel("Amount in USD").fill(amount);
  await page.getByRole("radio", { name: coin }).check();
  await page.getByRole("button", { name: "Get a deposit address" }).click();
  await expect(page).toHaveURL(/\/dashboard\/topups\/[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId("topup-phase")).toHaveText("Waiting for payment");
}

test("a Bitcoin deposit shows its QR, address and amount, and turns completed when paid", async ({
  page,
}) => {
  await signUp(page);
  await startDeposit(page, "40", /Bitcoin/);

  const qr = page.getByRole("img", { name: /QR code to pay/ });
  await expect(qr).toBeVisible();
  expect(await qr.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
  await expect(page.getByRole("link", { name: "Open in a wallet app" })).toHaveAttribute("href", /^bitcoin:/);
  const address = (await page.getByTestId("deposit-address").textContent()) ?? "";
  const amount = (await page.getByTestId("deposit-amount").textContent()) ?? "";
  expect(address).toMatch(/^(bc1|tb1|bcrt1)[0-9a-z]+$/);
  expect(Number(amount)).toBeGreaterThan(0);
  await expect(page.getByTestId("deposit-network")).toContainText("Bitcoin");
  await expect(page.getByRole("timer")).toHaveText(/^\d+:\d\d$/);
  await expect(page.getByRole("button", { name: "Copy address" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Copy amount" })).toBeVisible();

  // Half now: partially paid, with what is missing.
  await page.getByRole("button", { name: "Simulate paying half of it" }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Partially paid");
  await expect(page.getByText(/Send the missing 0\.\d+ BTC to the same address/)).toBeVisible();
  // Once the half confirms it is credited at once, and the balance beside it moves with it.
  await expect(page.getByText(/\$20\.00 of it is already credited to your balance/)).toBeVisible({
    timeout: 15_000,
  });
  await expect(page.getByTestId("balance")).toHaveText("$20.00");
  // Money has arrived: cancelling can no longer work, so it is not offered.
  await expect(page.getByRole("button", { name: "Cancel top-up" })).toHaveCount(0);

  // The rest: received and confirming, then completed by the watcher, with the new balance.
  await page.getByRole("button", { name: /Simulate paying 0\.\d+ BTC/ }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText(/Payment received, confirming|Completed/);
  await expect(page.getByTestId("topup-phase")).toHaveText("Completed", { timeout: 15_000 });
  await expect(page.getByText("Credited $40.00. Your balance is now $40.00.")).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$40.00");
  // Each payment says what it credited and at which rate: both paid the asked amount, at the locked rate.
  const credits = page.getByTestId("payment-credit");
  await expect(credits).toHaveCount(2);
  for (const credit of await credits.all()) {
    await expect(credit).toContainText(
      /^Credited \$20\.00:0\.\d{8} BTC of the asked amount, at the locked \$97,000\/BTC: \$20\.00$/,
    );
  }

  // Polling stops at the final state.
  const polls: string[] = [];
  page.on("request", (request) => {
    if (/\/bff\/topups\/[^/]+$/.test(new URL(request.url()).pathname)) polls.push(request.url());
  });
  await page.waitForTimeout(4_500);
  expect(polls).toEqual([]);

  await page.getByRole("link", { name: "All top-ups" }).click();
  await expect(
    page.getByRole("table", { name: "Top-up history" }).getByRole("row", { name: /BTC.*completed/ }),
  ).toBeVisible();
});

test("a deposit can be reopened from the history and cancelled", async ({ page }) => {
  await signUp(page);
  await startDeposit(page, "25.50", /Litecoin/);
  await expect(page.getByTestId("deposit-network")).toContainText("Litecoin");
  await page.getByRole("link", { name: "All top-ups" }).click();

  const row = page.getByRole("table", { name: "Top-up history" }).getByRole("row", { name: /LTC/ });
  await expect(row).toContainText("$25.50");
  await expect(row).toContainText("pending");
  await row.getByRole("link", { name: /Open/ }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Waiting for payment");

  await page.getByRole("button", { name: "Cancel top-up" }).click();
  await page.getByRole("button", { name: "Yes, cancel it" }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Cancelled");
  await expect(page.getByTestId("deposit-address")).toHaveCount(0);
});

test("a payment sent after cancelling is shown credited as late, with the rate it was valued at", async ({
  page,
}) => {
  await signUp(page);
  await startDeposit(page, "34", /Litecoin/);
  const ref = new URL(page.url()).pathname.split("/").pop();
  await page.getByRole("button", { name: "Cancel top-up" }).click();
  await page.getByRole("button", { name: "Yes, cancel it" }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Cancelled");

  // Sent anyway, as a wallet could: 0.4 LTC at the demo's 85 USD/LTC.
  const paid = await page.request.post(`/bff/topups/${ref}/demo-pay`, {
    headers: { origin: new URL(page.url()).origin },
    data: { amount: "0.4" },
  });
  expect(paid.status()).toBe(200);
  // A cancelled top-up is final to the page, so it stops asking: open it again once the watcher has credited.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("payment-credit")).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("payment-credit")).toHaveText(
    "Credited $34.00:0.40000000 LTC after the quote ended, at $85/LTC: $34.00",
  );
  await expect(page.getByTestId("topup-phase")).toHaveText("Completed");
  await expect(page.getByTestId("balance")).toHaveText("$34.00");
});

test("the form checks the amount as the API does", async ({ page }) => {
  await signUp(page);
  await page.goto("/dashboard/topups");
  for (const amount of ["24.99", "2000.01", "abc"]) {
    await page.getByLabel("Amount in USD").fill(amount);
    await page.getByRole("button", { name: "Get a deposit address" }).click();
    await expect(
      page.getByRole("alert").filter({ hasText: "Enter an amount from $25.00 to $2,000.00." }),
    ).toBeVisible();
  }
  await page.getByLabel("Amount in USD").fill("30.005");
  await page.getByRole("button", { name: "Get a deposit address" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "Use whole cents (at most two decimals)." }),
  ).toBeVisible();
  await expect(page.getByText("No top-ups yet.")).toBeVisible();
});

test.describe("ETH read from a local Ethereum chain by the EVM watcher", () => {
  let ethereum: LocalChain;
  let app: RunningApp;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    ethereum = await startAnvil({ chainId: 1 });
    app = await startApp({
      EVM_RPC_URL: ethereum.rpcUrl,
      EVM_CHAIN_ID: "1",
      DEPOSIT_CONFIRMATIONS: "ETH:2",
      WATCHER_INTERVAL_MS: "300",
    });
  });

  test.afterAll(async () => {
    await app?.stop();
    await ethereum?.stop();
  });

  test("an ETH deposit turns completed when the transfer lands on chain", async ({ page }) => {
    test.setTimeout(120_000);
    await signUp(page, app.url);
    await startDeposit(page, "25", /^Ether/, app.url);
    await expect(page.getByTestId("deposit-network")).toContainText("Ethereum");
    // Read from the real chain here: no simulated payment is offered.
    await expect(page.getByRole("button", { name: /Simulate paying/ })).toHaveCount(0);
    const address = (await page.getByTestId("deposit-address").textContent()) as `0x${string}`;
    const amount = (await page.getByTestId("deposit-amount").textContent()) ?? "";

    const payer = privateKeyToAccount(generatePrivateKey());
    await createTestClient({ mode: "anvil", transport: http(ethereum.rpcUrl) }).setBalance({
      address: payer.address,
      value: parseEther("10"),
    });
    const wallet = createWalletClient({ account: payer, transport: http(ethereum.rpcUrl) });
    await wallet.sendTransaction({ chain: null, to: address, value: parseEther(amount) });

    await expect(page.getByTestId("topup-phase")).toHaveText("Completed", { timeout: 30_000 });
    await expect(page.getByTestId("balance")).toHaveText("$25.00");
  });
});
