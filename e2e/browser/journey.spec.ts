import { expect, test } from "@playwright/test";
import { api, recordResponseBodies } from "../support/dashboard";

test("the whole journey: sign up, sign in again, fund, order, watch it build, reveal the password", async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(90_000);
  const bffBodies = recordResponseBodies(
    page,
    (url) => url.pathname.startsWith("/bff/") && url.pathname !== "/bff/sign-up",
  );

  // Sign up: both credentials shown once, and the session cookie is out of the page's reach.
  await page.goto("/signup");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "cannot be shown again" })).toBeVisible();
  const apiKey = (await page.getByTestId("api-key").textContent()) ?? "";
  const loginToken = (await page.getByTestId("login-token").textContent()) ?? "";
  expect(apiKey).toMatch(/^vpsk_/);
  expect(loginToken).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  const cookie = (await context.cookies()).find((c) => c.name === "vps_session");
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe("Lax");
  await page.getByRole("link", { name: /continue to the dashboard/i }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await page.reload();
  expect(await page.content()).not.toContain(apiKey);

  // Sign out, then back in with the login token alone.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await page.goto("/dashboard/servers");
  await expect(page).toHaveURL(/\/signin$/);
  await page.getByLabel("Login token").fill(loginToken);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();

  // The landing's calculator and the order page price with the API's own numbers.
  const catalog = (await (await request.get("/api/v1/catalog")).json()) as {
    pricing: { prices: { plan: string; location: string; monthly_usd: number; annual_usd: number }[] };
  };
  const apiPrice = (plan: string, location: string, cycle: "monthly" | "annual") => {
    const row = catalog.pricing.prices.find((p) => p.plan === plan && p.location === location);
    return (cycle === "annual" ? row?.annual_usd : row?.monthly_usd) ?? Number.NaN;
  };
  await page.goto("/");
  const calculator = page.getByRole("form", { name: "Price calculator" });
  await calculator.getByLabel("Plan").selectOption("fox");
  await calculator.getByLabel("Location").selectOption("ch");
  await calculator.getByLabel("Billing").selectOption("annual");
  await expect(calculator.getByTestId("calculated-price")).toHaveText(
    `$${apiPrice("fox", "ch", "annual").toFixed(2)}`,
  );

  // On an empty balance the order page shows the shortfall and a top-up of that amount.
  await page.goto("/dashboard/order");
  await page.getByRole("radio", { name: /^Fox/ }).check();
  await page.getByLabel("Location").selectOption("ch");
  await page.getByRole("radio", { name: /^Annual/ }).check();
  const annualFoxCh = apiPrice("fox", "ch", "annual");
  await expect(page.getByTestId("order-price")).toHaveText(`$${annualFoxCh.toFixed(2)} / year`);
  await expect(page.getByTestId("order-deficit")).toHaveText(`$${annualFoxCh.toFixed(2)}`);
  const topupLink = page.getByRole("link", { name: /^Top up \$/ });
  await expect(topupLink).toHaveAttribute("href", `/dashboard/topups?amount=${annualFoxCh.toFixed(2)}`);

  // Fund exactly that from the link: a Bitcoin deposit, paid (demo) and confirmed by the watcher.
  await topupLink.click();
  await expect(page.getByLabel("Amount in USD")).toHaveValue(annualFoxCh.toFixed(2));
  await page.getByRole("radio", { name: /Bitcoin/ }).check();
  await page.getByRole("button", { name: "Get a deposit address" }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Waiting for payment");
  await page.getByRole("button", { name: /^Simulate paying 0\.\d+ BTC/ }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Completed", { timeout: 20_000 });
  await expect(page.getByTestId("balance")).toHaveText(`$${annualFoxCh.toFixed(2)}`);

  // Back to the order: now the balance covers it exactly.
  await page.getByRole("link", { name: "Order", exact: true }).click();
  await page.getByRole("radio", { name: /^Fox/ }).check();
  await page.getByLabel("Location").selectOption("ch");
  await page.getByRole("radio", { name: /^Annual/ }).check();
  await expect(page.getByTestId("order-balance")).toHaveText(`$${annualFoxCh.toFixed(2)}`);
  await expect(page.getByTestId("order-deficit")).toHaveCount(0);
  await page.getByLabel("Host name (optional)").fill("journey-box");
  await page.getByRole("button", { name: `Order for $${annualFoxCh.toFixed(2)}` }).click();

  // The detail page follows the build by itself until the server is active with an address.
  await expect(page.getByRole("heading", { level: 1, name: "journey-box" })).toBeVisible();
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 30_000 });
  await expect(page.getByTestId("server-ip")).toHaveText(/^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.\d+\.\d+$/);
  const serverId = Number(page.url().split("/").pop());

  // The password stays masked until revealed, equals the API's, and is hidden again on request.
  await expect(page.getByTestId("root-password")).not.toContainText(/[A-Za-z0-9]/);
  await page.getByRole("button", { name: "Reveal password" }).click();
  const credentials = await api(request, apiKey, `/servers/${serverId}/credentials`);
  await expect(page.getByTestId("root-password")).toHaveText(credentials.body.password);
  await page.getByRole("button", { name: "Hide password" }).click();
  await expect(page.getByTestId("root-password")).not.toContainText(credentials.body.password);

  // The list shows it too, and the balance paid for it.
  await page.getByRole("link", { name: "Servers", exact: true }).click();
  await expect(
    page.getByRole("table", { name: "Servers" }).getByRole("link", { name: "journey-box" }),
  ).toBeVisible();
  expect((await api(request, apiKey, "/account")).body.balance_usd).toBe(0);

  for (const { body } of await bffBodies()) expect(body).not.toContain("vpsk_");
});
