import { expect, test } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { signUp } from "../support/dashboard";

test("API keys are created, shown once, and revoked", async ({ page }) => {
  await signUp(page);
  await page.getByRole("link", { name: "API keys" }).click();
  const table = page.getByRole("table", { name: "API keys" });
  await expect(table.getByRole("row", { name: /default/ })).toBeVisible();
  await page.getByLabel("Name (optional)").fill("ci-runner");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-key")).toContainText(/^vpsk_/);
  const row = table.getByRole("row", { name: /ci-runner/ });
  await expect(row).toBeVisible();
  await row.getByRole("button", { name: /Revoke/ }).click();
  await expect(table.getByRole("row", { name: /ci-runner/ })).toHaveCount(0);
  await expect(table.getByRole("row", { name: /default/ })).toBeVisible();
});

test("a read-only key made in the dashboard reads through the API, and a write is refused naming its scope", async ({
  page,
  request,
}) => {
  await signUp(page);
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Name (optional)").fill("monitoring");
  await expect(page.getByRole("radio", { name: "Read-only" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "servers:read" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "billing:spend" })).not.toBeChecked();
  await expect(page.getByLabel("Expires")).toHaveValue("90");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = ((await page.getByTestId("new-key").textContent()) ?? "").trim();
  expect(key).toMatch(/^vpsk_/);
  const table = page.getByRole("table", { name: "API keys" });
  const row = table.getByRole("row", { name: /monitoring/ });
  await expect(row).toContainText("servers:read topups:read account:read keys:read webhooks:read");
  await expect(row).toContainText(new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10));
  await expect(table.getByRole("row", { name: /default/ })).toContainText("every scope");

  const auth = { authorization: `Bearer ${key}` };
  expect((await request.get("/api/v1/servers", { headers: auth })).status()).toBe(200);
  const write = await request.post("/api/v1/servers", {
    headers: auth,
    data: { plan: "pup", location: "nl", os: "debian-13" },
  });
  expect(write.status()).toBe(403);
  expect(await write.json()).toMatchObject({
    error: "missing_scope",
    required_scopes: ["billing:spend"],
    key_scopes: ["servers:read", "topups:read", "account:read", "keys:read", "webhooks:read"],
  });

  // The agent preset: spending with its needs, and a budget the service holds.
  await page.getByLabel("Name (optional)").fill("agent");
  await page.getByRole("radio", { name: "Agent with a budget" }).click();
  await expect(page.getByRole("checkbox", { name: "billing:spend" })).toBeChecked();
  await expect(page.getByLabel("USD")).toHaveValue("50");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(table.getByRole("row", { name: /agent/ })).toContainText("$0.00 of $50.00 a month");
});

test("two-factor sign-in, once turned on, is required at sign-in", async ({ page }) => {
  const { loginToken: token } = await signUp(page);
  await page.getByRole("link", { name: "Security" }).click();
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  await expect(page.getByRole("img", { name: /QR code/ })).toBeVisible();
  const secret = Secret.fromBase32((await page.getByTestId("totp-secret").textContent()) ?? "");
  await page.getByLabel("6-digit code").fill(TOTP.generate({ secret }));
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByTestId("totp-state")).toHaveText("Two-factor sign-in is on.");

  await page.goto("/dashboard");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await page.getByLabel("Login token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  // The next step's code: the one used to confirm cannot be used again.
  await page.getByLabel(/authenticator app/).fill(TOTP.generate({ secret, timestamp: Date.now() + 30_000 }));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
});

test("turning two-factor sign-in on shows the recovery codes once; one signs in in place of the app", async ({
  page,
}) => {
  const { loginToken: token } = await signUp(page);
  await page.getByRole("link", { name: "Security" }).click();
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  const secret = Secret.fromBase32((await page.getByTestId("totp-secret").textContent()) ?? "");
  await page.getByLabel("6-digit code").fill(TOTP.generate({ secret }));
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByTestId("totp-state")).toHaveText("Two-factor sign-in is on.");

  // The "save these" step: ten codes, and the page waits until the user says they are kept.
  await expect(page.getByRole("heading", { name: "Save your recovery codes" })).toBeVisible();
  const codes = await page.getByTestId("recovery-code").allTextContents();
  expect(codes).toHaveLength(10);
  for (const code of codes) expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
  const done = page.getByRole("button", { name: "Done" });
  await expect(done).toBeDisabled();
  await page.getByLabel("I have saved these codes").check();
  await done.click();
  await expect(page.getByTestId("recovery-code")).toHaveCount(0);
  await expect(page.getByText("10 recovery codes left.")).toBeVisible();

  await page.goto("/dashboard");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await page.getByLabel("Login token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Use a recovery code instead" }).click();
  await page.getByLabel("Recovery code").fill(codes[0] ?? "");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await page.getByRole("link", { name: "Security" }).click();
  await expect(page.getByText("9 recovery codes left.")).toBeVisible();
});
