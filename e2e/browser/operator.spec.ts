import { expect, type Page, test } from "@playwright/test";
import { type RunningApp, startApp } from "../support/app-server";
import { signUp } from "../support/dashboard";
import { addOperator, freshCode, type NewOperator } from "../support/operator";

/**
 * The operator's journey, in Chromium against an app of its own with one host in Reykjavik: an operator made
 * on the command line signs in with TOTP, watches a host's free memory drop when a customer orders, finds the
 * account by the server's address, suspends the server for abuse (the customer's dashboard and API show the
 * reason, power and termination are refused, the dashboard saying why), lifts it, credits the account, and
 * finds it all in the audit log.
 */
const HOST = {
  name: "is-op-1",
  location: "is",
  uri: "qemu:///system",
  memory_mb: 4096,
  vcpus: 4,
  disk_gb: 100,
};

test.describe("the operator's console", () => {
  let app: RunningApp;
  let operator: NewOperator;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    app = await startApp({
      HYPERVISORS: JSON.stringify([HOST]),
      PROVISION_DELAY_SECONDS: "1",
      WATCHER_INTERVAL_MS: "300",
    });
    operator = await addOperator({ DATA_DIR: app.dataDir }, "ops", "admin");
  });
  test.afterAll(async () => {
    await app?.stop();
  });

  /** The customer's REST API on this test's app. */
  async function customerApi(key: string, path: string, method = "GET", body?: unknown) {
    const response = await fetch(`${app.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function freeMemory(page: Page) {
    await page.goto(`${app.url}/operator/hosts`);
    return page.getByTestId(`host-${HOST.name}`).getByTestId("free-memory");
  }

  test("sign in, watch a host fill, find the account by address, suspend, lift, credit, and read the audit log", async ({
    page,
    browser,
  }) => {
    test.setTimeout(180_000);
    await page.goto(`${app.url}/operator`);
    await expect(page.getByRole("heading", { level: 1, name: "Operator sign-in" })).toBeVisible();
    await page.getByLabel("Sign-in secret").fill(operator.secret);
    await page.getByLabel("Code from the authenticator app").fill(await freshCode(operator.totpSecret));
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    await expect(page.getByTestId("operator-identity")).toHaveText("ops · admin");
    await expect(page.getByRole("img", { name: /Money in over 30 days/ })).toBeVisible();

    await expect(await freeMemory(page)).toHaveText("4096 MB");
    await expect(page.getByTestId(`host-${HOST.name}`).getByTestId("libvirt-status")).toContainText(
      "Simulated",
    );

    // A customer signs up in a browser of their own, pays, and orders a Pup in Reykjavik.
    const customerContext = await browser.newContext();
    const customer = await customerContext.newPage();
    const { apiKey } = await signUp(customer, app.url);
    const topup = await customerApi(apiKey, "/topups", "POST", { amount: 30, coin: "BTC" });
    expect((await customerApi(apiKey, `/demo/topups/${topup.body.ref}/pay`, "POST", {})).status).toBe(200);
    await expect
      .poll(async () => (await customerApi(apiKey, "/account")).body.balance_usd, { timeout: 20_000 })
      .toBe(30);
    const ordered = await customerApi(apiKey, "/servers", "POST", {
      plan: "pup",
      location: "is",
      os: "debian-13",
    });
    expect(ordered.status).toBe(201);
    const serverId = ordered.body.id as number;
    await expect
      .poll(async () => (await customerApi(apiKey, `/servers/${serverId}`)).body.status, { timeout: 20_000 })
      .toBe("active");
    const server = (await customerApi(apiKey, `/servers/${serverId}`)).body;
    const ip = server.ip as string;
    const accountId = (await customerApi(apiKey, "/account")).body.user_id as number;

    // The host's free memory dropped by the Pup's.
    await expect(await freeMemory(page)).toHaveText(`${HOST.memory_mb - (server.memory_mb as number)} MB`);

    // Found by the server's address.
    await page.getByRole("link", { name: "Accounts", exact: true }).click();
    await page.getByLabel(/server address/).fill(ip);
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page.getByRole("list", { name: "Accounts found" })).toContainText(
      `address of server ${serverId}`,
    );
    await page.getByRole("link", { name: `Account ${accountId}` }).click();
    await expect(page.getByRole("heading", { level: 1, name: `Account ${accountId}` })).toBeVisible();
    await expect(page.getByTestId("account-balance")).toHaveText(
      `$${(30 - (server.price_usd as number)).toFixed(2)}`,
    );

    // Suspended for abuse, with the reason the customer reads.
    const reason = "Outgoing port scans reported by abuse@example.net";
    const card = page.getByTestId(`server-${serverId}`);
    await card.getByLabel("Reason the customer reads").fill(reason);
    await card.getByRole("button", { name: "Suspend server" }).click();
    await expect(card.getByTestId("server-status")).toHaveText("suspended");
    await expect(card.getByTestId("server-reason")).toHaveText(`Suspended by the operator: ${reason}`);

    await customer.goto(`${app.url}/dashboard/servers/${serverId}`);
    await expect(customer.getByTestId("server-status")).toHaveText("suspended");
    await expect(customer.getByTestId("server-status-reason")).toHaveText(
      `Suspended by the operator: ${reason}`,
    );
    await expect(customer.getByRole("button", { name: "Start" })).toHaveCount(0);
    // Why it cannot be terminated, nor its snapshots deleted, where the owner would try: the settings
    // section and the snapshots section.
    await customer.goto(`${app.url}/dashboard/servers/${serverId}/settings`);
    await expect(customer.getByTestId("terminate-held")).toContainText(reason);
    await expect(customer.getByRole("button", { name: "Terminate server" })).toHaveCount(0);
    await customer.goto(`${app.url}/dashboard/servers/${serverId}/snapshots`);
    await expect(customer.getByTestId("snapshots-held")).toContainText(reason);
    const viaApi = await customerApi(apiKey, `/servers/${serverId}`);
    expect(viaApi.body).toMatchObject({
      status: "suspended",
      status_reason: `Suspended by the operator: ${reason}`,
    });
    const refused = await customerApi(apiKey, `/servers/${serverId}/actions`, "POST", { action: "start" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("server_not_active");
    const terminate = await customerApi(apiKey, `/servers/${serverId}`, "DELETE");
    expect(terminate.body.error).toBe("server_held");

    // Lifted: back as it was.
    await card.getByLabel("Why it is lifted (audit log)").fill("Scanner removed by the customer");
    await card.getByRole("button", { name: "Lift suspension" }).click();
    await expect(card.getByTestId("server-status")).toHaveText("active");
    await customer.goto(`${app.url}/dashboard/servers/${serverId}`);
    await expect(customer.getByTestId("server-status")).toHaveText("active");
    await expect(customer.getByTestId("server-status-reason")).toHaveCount(0);
    await expect(customer.getByRole("button", { name: "Stop" })).toBeVisible();
    await customer.goto(`${app.url}/dashboard/servers/${serverId}/settings`);
    await expect(customer.getByRole("button", { name: "Terminate server" })).toBeVisible();

    // A credit through the ledger, with its reason.
    const before = (await customerApi(apiKey, "/account")).body.balance_usd as number;
    const adjustment = page.getByRole("form", { name: "Ledger adjustment" });
    await adjustment.getByLabel("Amount in USD").fill("5");
    await adjustment.getByLabel(/^Reason/).fill("Goodwill for the time it was suspended");
    await adjustment.getByRole("button", { name: "Post adjustment" }).click();
    await expect(adjustment.getByRole("status")).toHaveText("Posted to the ledger.");
    await expect(page.getByTestId("ledger-entry").first()).toContainText(
      "Goodwill for the time it was suspended (ops)",
    );
    await expect(page.getByTestId("account-balance")).toHaveText(`$${(before + 5).toFixed(2)}`);
    expect((await customerApi(apiKey, "/account")).body.balance_usd).toBe(before + 5);
    await customer.goto(`${app.url}/dashboard`);
    await expect(customer.getByTestId("balance")).toHaveText(`$${(before + 5).toFixed(2)}`);

    // Every action in the audit log: who, what, on what, why.
    await page.getByRole("link", { name: "Audit log" }).click();
    const entries = page.getByTestId("audit-entry");
    await expect(entries.nth(0)).toContainText(`adjust_ledger`);
    await expect(entries.nth(0)).toContainText(`account:${accountId}`);
    await expect(entries.nth(0)).toContainText("Goodwill for the time it was suspended");
    await expect(entries.nth(1)).toContainText(`lift_server`);
    await expect(entries.nth(2)).toContainText(`suspend_server`);
    await expect(entries.nth(2)).toContainText(reason);
    await expect(entries.nth(3)).toContainText("sign_in");
    await expect(entries.nth(3)).toContainText("ops");
    await customerContext.close();
  });
});
