import { expect, test } from "@playwright/test";

test("sign up, credentials shown once, sign out, sign in with the login token", async ({ page, context }) => {
  const bffBodies: string[] = [];
  page.on("response", async (response) => {
    if (new URL(response.url()).pathname.startsWith("/bff/") && !response.url().endsWith("/bff/sign-up")) {
      bffBodies.push(await response.text().catch(() => ""));
    }
  });

  await page.goto("/signup");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "cannot be shown again" })).toBeVisible();
  const apiKey = (await page.getByTestId("api-key").textContent()) ?? "";
  const loginToken = (await page.getByTestId("login-token").textContent()) ?? "";
  expect(apiKey).toMatch(/^vpsk_/);
  expect(loginToken).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  const session = (await context.cookies()).find((cookie) => cookie.name === "vps_session");
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Lax");

  await page.getByRole("link", { name: /continue to the dashboard/i }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$0.00");
  // The page itself never carries the key either.
  expect(await page.content()).not.toContain(apiKey);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/signin$/);

  await page.getByLabel("Login token").fill(loginToken.toLowerCase());
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  for (const body of bffBodies) expect(body).not.toContain("vpsk_");
});

test("a wrong login token is refused with a message", async ({ page }) => {
  await page.goto("/signin");
  await page.getByLabel("Login token").fill("AAAA-BBBB-CCCC-DDDD");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "not valid" })).toBeVisible();
  await expect(page).toHaveURL(/\/signin$/);
});

test("a cross-origin POST to the BFF is refused", async ({ request }) => {
  const response = await request.post("/bff/sign-up", { headers: { origin: "http://evil.example" } });
  expect(response.status()).toBe(403);
});
