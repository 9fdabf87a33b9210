import { expect, test } from "@playwright/test";

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
