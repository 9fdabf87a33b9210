import { expect, test } from "@playwright/test";
import { api, fundBalance, signUp } from "../support/dashboard";

test("an empty account sees the empty server list and the shortfall when ordering", async ({ page }) => {
  await signUp(page);
  await page.getByRole("link", { name: "Servers", exact: true }).click();
  // The overview says "No servers yet." too, and links "…to order a server": wait for the servers page itself.
  await expect(page.getByRole("heading", { level: 1, name: "Servers" })).toBeVisible();
  await expect(page.getByText("No servers yet. Order one")).toBeVisible();
  await page.getByRole("link", { name: "Order a server", exact: true }).click();
  await expect(page.getByTestId("order-balance")).toHaveText("$0.00");
  await expect(page.getByTestId("order-deficit")).toBeVisible();
  // A shortfall below the smallest top-up asks for the smallest top-up.
  await expect(page.getByRole("link", { name: "Top up $25.00" })).toHaveAttribute(
    "href",
    "/dashboard/topups?amount=25.00",
  );
  await expect(page.getByRole("button", { name: /^Order for/ })).toHaveCount(0);
});

test("a server is renewed, switched off and on, and terminated only after typing its name", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { apiKey } = await signUp(page);
  await fundBalance(request, apiKey, 25);
  // $9.00 a month against $25: the order and one renewal fit, a second renewal does not.
  const ordered = await api(request, apiKey, "/servers", "POST", {
    plan: "jackal",
    location: "nl",
    os: "debian-13",
  });
  expect(ordered.status).toBe(201);
  expect(ordered.body.price_usd).toBe(9);
  const id = ordered.body.id as number;

  await page.goto(`/dashboard/servers/${id}`);
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });

  // Renewal moves the paid-until date by one month and takes the price from the balance.
  const before = (await page.getByTestId("server-expires").textContent()) ?? "";
  await page.getByRole("button", { name: /^Renew for one month/ }).click();
  await expect(page.getByTestId("server-notice")).toHaveText("Renewed.");
  await expect(page.getByTestId("server-expires")).not.toHaveText(before);
  expect((await api(request, apiKey, `/servers/${id}`)).body.expires_at.slice(0, 16).replace("T", " ")).toBe(
    (await page.getByTestId("server-expires").textContent())?.replace(" UTC", ""),
  );

  // Automatic renewal is a switch the API remembers.
  await page.getByLabel("Renew automatically from the balance").click();
  await expect(page.getByTestId("server-notice")).toHaveText("Automatic renewal is on.");
  await expect(page.getByLabel("Renew automatically from the balance")).toBeChecked();
  expect((await api(request, apiKey, `/servers/${id}`)).body.auto_renew).toBe(true);

  // Power: stop, then start again.
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByTestId("power-state")).toHaveText("stopped");
  await expect(page.getByRole("button", { name: "Stop" })).toBeDisabled();
  await page.getByRole("button", { name: "Start" }).click();
  await expect(page.getByTestId("power-state")).toHaveText("running");

  // A second renewal is more than the balance holds: the page says by how much and offers the top-up.
  expect((await api(request, apiKey, "/account")).body.balance_usd).toBe(7);
  await page.getByRole("button", { name: /^Renew for one month/ }).click();
  await expect(page.getByRole("alert").filter({ hasText: "balance" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Top up $25.00" })).toHaveAttribute(
    "href",
    "/dashboard/topups?amount=25.00",
  );

  // Termination, under Settings, waits for the exact host name.
  await page
    .getByRole("navigation", { name: "Server sections" })
    .getByRole("link", { name: "Settings" })
    .click();
  const terminate = page.getByRole("button", { name: "Terminate server" });
  await expect(terminate).toBeDisabled();
  await page.getByLabel("Host name to confirm termination").fill("not-the-name");
  await expect(terminate).toBeDisabled();
  expect((await api(request, apiKey, `/servers/${id}`)).body.status).toBe("active");
  await page.getByLabel("Host name to confirm termination").fill(ordered.body.hostname);
  await terminate.click();
  await expect(page.getByTestId("server-status")).toHaveText("terminated");
  expect((await api(request, apiKey, `/servers/${id}`)).body.status).toBe("terminated");
  await page
    .getByRole("navigation", { name: "Server sections" })
    .getByRole("link", { name: "Overview" })
    .click();
  await expect(page.getByTestId("server-facts")).toBeVisible();
  await expect(page.getByRole("button", { name: "Reveal password" })).toHaveCount(0);
});

test("another account's server is not found, and a signed-out visitor goes to sign-in", async ({
  page,
  browser,
}) => {
  const { apiKey } = await signUp(page);
  await fundBalance(page.request, apiKey, 25);
  const ordered = await api(page.request, apiKey, "/servers", "POST", {
    plan: "pup",
    location: "nl",
    os: "debian-13",
  });
  expect(ordered.status).toBe(201);

  const stranger = await browser.newPage();
  await signUp(stranger);
  const response = await stranger.goto(`/dashboard/servers/${ordered.body.id}`);
  expect(response?.status()).toBe(404);
  await expect(stranger.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(stranger.getByText(ordered.body.hostname)).toHaveCount(0);
  await stranger.close();

  const anonymous = await browser.newPage();
  await anonymous.goto(`/dashboard/servers/${ordered.body.id}`);
  await expect(anonymous).toHaveURL(/\/signin$/);
  await anonymous.close();
});

test("on a phone the pages fit the screen, and the order form works from the keyboard", async ({
  browser,
}) => {
  const phone = await browser.newContext({
    viewport: { width: 375, height: 740 },
    isMobile: true,
    hasTouch: true,
  });
  const page = await phone.newPage();
  const { apiKey } = await signUp(page);
  await fundBalance(page.request, apiKey, 25);
  for (const path of [
    "/",
    "/dashboard",
    "/dashboard/order",
    "/dashboard/servers",
    "/dashboard/topups",
    "/dashboard/keys",
  ]) {
    await page.goto(path);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
  }

  // Keyboard only: pick the second plan with the arrow keys, then submit with Enter.
  await page.goto("/dashboard/order");
  await page.getByRole("radio", { name: /^Pup/ }).focus();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("radio", { name: /^Fox/ })).toBeChecked();
  await page.getByLabel("Host name (optional)").focus();
  await page.keyboard.type("keyboard-box");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "keyboard-box" })).toBeVisible();
  expect((await api(page.request, apiKey, "/servers")).body.servers[0].plan).toBe("fox");
  await phone.close();
});
