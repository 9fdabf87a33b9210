import { expect, type Page, test } from "@playwright/test";
import { createPublicClient, erc20Abi, http } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { recordResponseBodies, signUp } from "../support/dashboard";
import { injectTestWallet, mintTestUsdc } from "../support/test-wallet";

const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
const rpcUrl = process.env.E2E_DEMO_CHAIN_URL ?? "";
const chain = createPublicClient({ transport: http(rpcUrl) });

const usdcBalance = (address: `0x${string}`) =>
  chain.readContract({ address: USDC, abi: erc20Abi, functionName: "balanceOf", args: [address] });

/** A fresh wallet holding `usdc` test USDC on the app's demo chain (Base's chain id). */
async function fundedWallet(page: Page, usdc: bigint, chainId = 8453) {
  const privateKey = generatePrivateKey();
  await mintTestUsdc(rpcUrl, USDC, privateKeyToAddress(privateKey), usdc * 1_000_000n);
  return injectTestWallet(page, { privateKey, rpcUrl, chainId });
}

/** Opens the USDC path for `amount` USD, recording whether the wallet code was fetched before that. */
async function openWalletPayment(page: Page, amount: string) {
  const chunks = recordResponseBodies(page, (url) => url.pathname.startsWith("/_next/static/chunks/"));
  const walletChunks = async () =>
    (await chunks()).filter(({ body }) => body.includes("WagmiProviderNotFoundError")).map(({ url }) => url);
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Top up" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Top up" })).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$0.00");
  await page.getByLabel("Amount in USD").fill(amount);
  await page.getByRole("radio", { name: /USDC on Base/ }).check();
  expect(await walletChunks(), "the wallet code is not part of the page's first load").toEqual([]);
  await page.getByRole("button", { name: "Continue to wallet payment" }).click();
  await expect(page.getByRole("heading", { name: `Pay $${amount}.00 in USDC on Base` })).toBeVisible();
  await expect
    .poll(async () => (await walletChunks()).length, { message: "the wallet code loads" })
    .toBeGreaterThan(0);
}

test("an injected wallet pays a USDC top-up through wagmi and the balance rises by the amount", async ({
  page,
}) => {
  const wallet = await fundedWallet(page, 100n);
  await signUp(page);
  // After sign-up (whose answer shows the new account's key once), no BFF answer carries an API key.
  const bffBodies = recordResponseBodies(page, (url) => url.pathname.startsWith("/bff/"));
  await openWalletPayment(page, "30");

  await page.getByRole("button", { name: /Connect Browser wallet/ }).click();
  await expect(page.getByTestId("wallet-address")).toHaveAttribute("title", wallet.address);
  await expect(page.getByTestId("usdc-balance")).toHaveText("100.00 USDC");
  await page.getByRole("button", { name: "Pay 30.00 USDC" }).click();

  await expect(page.getByText("Credited $30.00.")).toBeVisible();
  await expect(page.getByTestId("tx-hash")).toHaveText(/^0x[0-9a-f]{64}$/);
  await expect(page.getByTestId("balance")).toHaveText("$30.00");
  await expect(page.getByText("Your balance is now $30.00.")).toBeVisible();
  await expect(page.getByTestId("usdc-balance")).toHaveText("70.00 USDC");

  // The wallet signed exactly one authorization, for exactly the amount the challenge asked.
  expect(wallet.signRequests).toHaveLength(1);
  expect(wallet.signRequests[0]?.primaryType).toBe("TransferWithAuthorization");
  expect(wallet.signRequests[0]?.message.value).toBe("30000000");
  expect(await usdcBalance(wallet.address)).toBe(70_000_000n);

  // The top-up is in the history, completed, and reopens with its payer.
  const history = page.getByRole("table", { name: "Top-up history" });
  await expect(history.getByRole("row", { name: /USDCBASE.*completed/ })).toBeVisible();
  await history.getByRole("link", { name: /Details/ }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Completed");
  await expect(page.getByText(new RegExp(wallet.address, "i"))).toBeVisible();
  for (const { body } of await bffBodies()) expect(body).not.toContain("vpsk_");
});

test("a rejected signature leaves the balance unchanged and the retry signs afresh", async ({ page }) => {
  const wallet = await fundedWallet(page, 50n);
  wallet.rejectNextSignatures(1);
  await signUp(page);
  await openWalletPayment(page, "25");

  await page.getByRole("button", { name: /Connect Browser wallet/ }).click();
  await expect(page.getByTestId("usdc-balance")).toHaveText("50.00 USDC");
  await page.getByRole("button", { name: "Pay 25.00 USDC" }).click();

  await expect(page.getByTestId("wallet-error")).toHaveText(/declined the signature/);
  await expect(page.getByTestId("balance")).toHaveText("$0.00");
  expect(await usdcBalance(wallet.address)).toBe(50_000_000n);
  const retry = page.getByRole("button", { name: "Try again (sign a new authorization)" });
  await expect(retry).toBeEnabled();

  await retry.click();
  await expect(page.getByText("Credited $25.00.")).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$25.00");
  expect(wallet.signRequests).toHaveLength(2);
  expect(wallet.signRequests[1]?.message.nonce).not.toBe(wallet.signRequests[0]?.message.nonce);
  expect(await usdcBalance(wallet.address)).toBe(25_000_000n);
});

test("a wallet short of USDC is told so and never asked to sign", async ({ page }) => {
  const wallet = await fundedWallet(page, 10n);
  await signUp(page);
  await openWalletPayment(page, "25");
  await page.getByRole("button", { name: /Connect Browser wallet/ }).click();
  await expect(page.getByTestId("usdc-balance")).toHaveText("10.00 USDC");
  await expect(page.getByRole("alert").filter({ hasText: /does not hold enough USDC/ })).toBeVisible();
  await expect(page.getByRole("button", { name: "Pay 25.00 USDC" })).toBeDisabled();
  expect(wallet.signRequests).toHaveLength(0);
});

test("in demo mode the labelled demo wallet pays from the demo chain", async ({ page }) => {
  await signUp(page);
  await openWalletPayment(page, "40");
  await page.getByRole("button", { name: /Connect Demo wallet \(test USDC/ }).click();
  await expect(page.getByTestId("usdc-balance")).toHaveText(/USDC$/);
  await page.getByRole("button", { name: "Pay 40.00 USDC" }).click();
  await expect(page.getByText("Credited $40.00.")).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$40.00");
});

test("a wallet on another network is switched to Base; a refused switch gets a message and a retry", async ({
  page,
}) => {
  const wallet = await fundedWallet(page, 30n, 1);
  wallet.rejectNextSwitches(1);
  await signUp(page);
  await openWalletPayment(page, "25");
  await page.getByRole("button", { name: /Connect Browser wallet/ }).click();
  await expect(page.getByText("Your wallet is on another network.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Switch to Base" })).toBeVisible();

  await page.getByRole("button", { name: "Pay 25.00 USDC" }).click();
  await expect(page.getByTestId("wallet-error")).toHaveText(/declined the switch to Base/);
  expect(wallet.signRequests).toHaveLength(0);

  await page.getByRole("button", { name: "Try again (sign a new authorization)" }).click();
  await expect(page.getByText("Credited $25.00.")).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$25.00");
  expect(wallet.signRequests).toHaveLength(1);
});

test("a payment the chain refuses gets a plain message, nothing is credited, and the retry signs afresh", async ({
  page,
}) => {
  const wallet = await fundedWallet(page, 30n);
  wallet.signWithWrongKeyNext(1);
  await signUp(page);
  await openWalletPayment(page, "25");
  await page.getByRole("button", { name: /Connect Browser wallet/ }).click();
  await page.getByRole("button", { name: "Pay 25.00 USDC" }).click();

  await expect(page.getByTestId("wallet-error")).toHaveText(
    /The payment was not settled: .*Nothing was charged\./,
  );
  await expect(page.getByTestId("balance")).toHaveText("$0.00");
  expect(await usdcBalance(wallet.address)).toBe(30_000_000n);

  await page.getByRole("button", { name: "Try again (sign a new authorization)" }).click();
  await expect(page.getByText("Credited $25.00.")).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$25.00");
  expect(wallet.signRequests).toHaveLength(2);
  expect(await usdcBalance(wallet.address)).toBe(5_000_000n);
});

test("the wallet's RPC forwards reads only, and the demo wallet signs only payments to this service", async ({
  page,
  baseURL,
}) => {
  const post = (path: string, data: unknown) =>
    page.request.post(path, { data, headers: { origin: baseURL ?? "" } });
  expect((await post("/bff/wallet/rpc", { jsonrpc: "2.0", id: 1, method: "eth_chainId" })).status()).toBe(
    401,
  );

  await signUp(page);
  const chainId = await post("/bff/wallet/rpc", { jsonrpc: "2.0", id: 1, method: "eth_chainId" });
  expect(await chainId.json()).toMatchObject({ result: "0x2105" });
  const send = await post("/bff/wallet/rpc", {
    jsonrpc: "2.0",
    id: 2,
    method: "eth_sendRawTransaction",
    params: ["0x00"],
  });
  expect(send.status()).toBe(400);
  expect(await send.json()).toMatchObject({ error: "method_not_allowed" });

  const now = Math.floor(Date.now() / 1000);
  const terms = {
    to: privateKeyToAddress(generatePrivateKey()),
    value: "25000000",
    validAfter: String(now - 600),
    validBefore: String(now + 300),
    nonce: `0x${"11".repeat(32)}`,
  };
  const elsewhere = await post("/bff/wallet/demo-sign", terms);
  expect(elsewhere.status()).toBe(400);
  expect(await elsewhere.json()).toMatchObject({ error: "demo_wallet_refused" });

  // Even to this service: not above the largest top-up, and not valid longer than a challenge allows.
  const challenge = await post("/bff/topups", { amount: 25, coin: "USDCBASE" });
  expect(challenge.status()).toBe(402);
  const payTo = (await challenge.json()).accepts[0].payTo as string;
  const tooMuch = await post("/bff/wallet/demo-sign", { ...terms, to: payTo, value: "2000000001" });
  expect(tooMuch.status()).toBe(400);
  const tooLong = await post("/bff/wallet/demo-sign", {
    ...terms,
    to: payTo,
    validBefore: String(now + 86_400),
  });
  expect(tooLong.status()).toBe(400);
  const fair = await post("/bff/wallet/demo-sign", { ...terms, to: payTo });
  expect(fair.status()).toBe(200);
  expect(await fair.json()).toMatchObject({ signature: expect.stringMatching(/^0x[0-9a-f]{130}$/) });
});
