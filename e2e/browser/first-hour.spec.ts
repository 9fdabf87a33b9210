import { expect, type Page, test } from "@playwright/test";
import { api } from "../support/dashboard";

/**
 * No page may scroll sideways: the document is never wider than the device. A phone browser widens its layout
 * viewport to fit content that is too wide (window.innerWidth grows with it), so compare with the device width,
 * and no table may be cut off inside its own scroller either.
 */
async function expectNoSidewaysScroll(page: Page, path: string, deviceWidth: number) {
  await page.goto(path);
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  // Lists that load in the browser (the top-up history) must be there before the page is measured.
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  if (process.env.E2E_SCREENSHOTS) {
    await page.screenshot({
      path: `${process.env.E2E_SCREENSHOTS}/${deviceWidth}${path.replaceAll("/", "_")}.png`,
      fullPage: true,
    });
  }
  const widths = await page.evaluate(() => ({
    document: document.documentElement.scrollWidth,
    window: window.innerWidth,
    clipped: [...document.querySelectorAll("table")]
      .filter((table) => table.scrollWidth > (table.parentElement?.clientWidth ?? Number.POSITIVE_INFINITY))
      .map((table) => table.getAttribute("aria-label")),
  }));
  expect(widths.window, `${path}: the layout viewport grew`).toBe(deviceWidth);
  expect(widths.document, `${path} scrolls sideways`).toBeLessThanOrEqual(deviceWidth);
  expect(widths.clipped, `${path}: a table is wider than its box`).toEqual([]);
}

const widths = [
  { name: "a phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: "a desktop", viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
];

for (const device of widths) {
  test(`the quickstart's path through the dashboard on ${device.name}: account, both top-ups, a server`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const context = await browser.newContext({
      viewport: device.viewport,
      isMobile: device.isMobile,
      hasTouch: device.hasTouch,
    });
    const page = await context.newPage();

    // 1. The landing page creates the account in one click, and shows this deployment's own API origin.
    await page.goto("/");
    await expect(page.getByTestId("api-curl")).toHaveText(
      `curl -X POST ${new URL(page.url()).origin}/api/v1/account`,
    );
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "cannot be shown again" })).toBeVisible();
    const apiKey = (await page.getByTestId("api-key").textContent()) ?? "";
    await page.getByRole("link", { name: /continue to the dashboard/i }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();

    // 2. 50 USD in Bitcoin, paid with the demo control.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Top up" }).click();
    await page.getByLabel("Amount in USD").fill("50");
    await page.getByRole("radio", { name: /Bitcoin/ }).check();
    await page.getByRole("button", { name: "Get a deposit address" }).click();
    await expect(page.getByTestId("topup-phase")).toHaveText("Waiting for payment");
    const depositPath = new URL(page.url()).pathname;
    await page.getByRole("button", { name: /^Simulate paying 0\.\d+ BTC/ }).click();
    await expect(page.getByTestId("topup-phase")).toHaveText("Completed", { timeout: 20_000 });
    await expect(page.getByTestId("balance")).toHaveText("$50.00");

    // 3. 30 USD in USDC on Base with the demo wallet; each step is marked done as it passes.
    await page.getByRole("link", { name: "All top-ups" }).click();
    await page.getByLabel("Amount in USD").fill("30");
    await page.getByRole("radio", { name: /USDC on Base/ }).check();
    await page.getByRole("button", { name: "Continue to wallet payment" }).click();
    await page.getByRole("button", { name: /Connect Demo wallet \(test USDC/ }).click();
    await page.getByRole("button", { name: "Pay 30.00 USDC" }).click();
    await expect(page.getByText("Credited $30.00.")).toBeVisible({ timeout: 30_000 });
    const steps = page
      .getByRole("listitem")
      .filter({ hasText: /Sign in your wallet|Settle on chain|Credited/ });
    await expect(steps).toHaveCount(3);
    for (const step of await steps.all()) await expect(step).toHaveAttribute("data-state", "done");
    await expect(page.getByTestId("balance")).toHaveText("$80.00");

    // 4. Order the cheapest plan with automatic renewal, from the button at the form's end.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Order" }).click();
    await page.getByRole("radio", { name: /^Pup/ }).check();
    await page.getByLabel("Host name (optional)").fill("first-box");
    await page.getByRole("checkbox", { name: /Renew automatically/ }).check();
    await page.getByRole("button", { name: /^Order for \$/ }).click();
    await expect(page.getByRole("heading", { level: 1, name: "first-box" })).toBeVisible();
    await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 30_000 });
    const serverPath = new URL(page.url()).pathname;
    const serverId = Number(serverPath.split("/").pop());
    const server = (await api(page.request, apiKey, `/servers/${serverId}`)).body;
    expect(server.auto_renew).toBe(true);

    // 5. The SSH command, the revealed password (the API's own), reboot and renewal.
    await expect(page.getByTestId("ssh-command")).toHaveText(`ssh root@${server.ip}`);
    await page.getByRole("button", { name: "Reveal password" }).click();
    const credentials = (await api(page.request, apiKey, `/servers/${serverId}/credentials`)).body;
    await expect(page.getByTestId("root-password")).toHaveText(credentials.password);
    await page.getByRole("button", { name: "Reboot" }).click();
    await expect(page.getByTestId("server-notice")).toHaveText("Reboot sent.");
    await page.getByRole("button", { name: /^Renew for one month/ }).click();
    await expect(page.getByTestId("server-notice")).toHaveText("Renewed.");
    expect((await api(page.request, apiKey, "/account")).body.balance_usd).toBeCloseTo(
      80 - 2 * server.price_usd,
      2,
    );
    await page.getByRole("link", { name: "← All servers" }).click();
    // A table on a desktop, cards on a phone: either way the server is there, linked.
    await expect(
      page
        .getByRole(device.isMobile ? "list" : "table", { name: "Servers" })
        .getByRole("link", { name: "first-box" }),
    ).toBeVisible();

    // 6. Every dashboard page fits the window, with a USDC row in the top-up history and a server in the list;
    //    a missing page keeps the dashboard's navigation.
    for (const path of [
      "/dashboard",
      "/dashboard/servers",
      serverPath,
      "/dashboard/order",
      "/dashboard/topups",
      depositPath,
      "/dashboard/keys",
      "/dashboard/security",
      "/dashboard/no-such-page",
    ]) {
      await expectNoSidewaysScroll(page, path, device.viewport.width);
    }
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await context.close();
  });
}
