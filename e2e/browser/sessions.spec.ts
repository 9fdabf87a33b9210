import { type Browser, expect, type Page, test } from "@playwright/test";
import { signUp } from "../support/dashboard";

/** Signs in through the sign-in page in a browser of its own (another device, as far as the service knows). */
async function signInElsewhere(browser: Browser, loginToken: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/signin");
  await page.getByLabel("Login token").fill(loginToken);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  return page;
}

async function expectSignedOut(page: Page) {
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/signin$/);
}

test("sessions are listed with this one marked; another can be revoked", async ({ page, browser }) => {
  const { loginToken } = await signUp(page);
  const other = await signInElsewhere(browser, loginToken);
  await page.getByRole("link", { name: "Security" }).click();
  const table = page.getByRole("table", { name: "Dashboard sessions" });
  await expect(table.getByRole("row")).toHaveCount(3); // the header and two sessions
  await expect(table.getByText("This session")).toHaveCount(1);
  // The newest (the other browser's) is listed first, and it is the one with a revoke button.
  await expect(
    table
      .getByRole("row")
      .nth(1)
      .getByRole("button", { name: /Revoke/ }),
  ).toBeVisible();
  await table.getByRole("button", { name: /Revoke/ }).click();
  await expect(table.getByRole("row")).toHaveCount(2);
  await expect(table.getByText("This session")).toBeVisible();
  await expectSignedOut(other);
  await page.reload();
  await expect(
    page.getByRole("table", { name: "Dashboard sessions" }).getByText("This session"),
  ).toBeVisible();
});

test("replacing the login token shows the new one once, signs out the others and keeps this one", async ({
  page,
  browser,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const { loginToken } = await signUp(page);
  const other = await signInElsewhere(browser, loginToken);
  await page.getByRole("link", { name: "Security" }).click();
  await page.getByRole("button", { name: "Replace login token" }).click();
  const shown = page.getByTestId("new-login-token");
  await expect(shown).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  const newToken = (await shown.textContent()) ?? "";
  expect(newToken).not.toBe(loginToken);
  await expect(page.getByText("1 other session(s) were signed out.")).toBeVisible();
  await page.getByRole("button", { name: "Copy login token" }).click();
  await expect(page.getByRole("button", { name: "Copy login token: copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(newToken);
  const table = page.getByRole("table", { name: "Dashboard sessions" });
  await expect(table.getByRole("row")).toHaveCount(2);

  // This browser goes on; the other one is out, and the old token no longer signs in.
  await expectSignedOut(other);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Security" })).toBeVisible();
  await expect(page.getByTestId("new-login-token")).toHaveCount(0); // shown once only
  await other.getByLabel("Login token").fill(loginToken);
  await other.getByRole("button", { name: "Sign in" }).click();
  // Next's route announcer is an alert too: name the refusal itself.
  await expect(other.getByRole("alert").filter({ hasText: "That login token is not valid." })).toBeVisible();
  await expect(other).toHaveURL(/\/signin$/);
  await other.getByLabel("Login token").fill(newToken);
  await other.getByRole("button", { name: "Sign in" }).click();
  await expect(other.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
});
