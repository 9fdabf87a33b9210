import { expect, type Page } from "@playwright/test";

/** Signs up through the page and lands on the overview of a new, empty account. */
export async function signUpInBrowser(page: Page, baseUrl = ""): Promise<void> {
  await page.goto(`${baseUrl}/signup`);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("link", { name: /continue to the dashboard/i }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
}
