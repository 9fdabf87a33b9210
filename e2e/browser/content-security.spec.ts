import { expect, type Page, test } from "@playwright/test";
import { signUp } from "../support/dashboard";

/** Every CSP violation the page reports, as `directive blocked-uri`. */
async function recordViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction("__reportViolation", (entry: string) => violations.push(entry));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { __reportViolation: (entry: string) => void }).__reportViolation(
        `${event.effectiveDirective} ${event.blockedURI}`,
      );
    });
  });
  return violations;
}

test("the pages run under their CSP without a single violation, and an injected script does not run", async ({
  page,
}) => {
  const violations = await recordViolations(page);
  await signUp(page);
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Top up" }).click();
  await expect(page).toHaveURL(/\/dashboard\/topups$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("prepaid balance");
  expect(violations).toEqual([]);

  // What injected markup would do: an inline handler, and a script inside injected HTML, never run.
  const ran = await page.evaluate(async () => {
    const injected = document.createElement("div");
    injected.innerHTML =
      '<img src="/no-such-image" onerror="window.__injected = true">' +
      '<iframe srcdoc="<script>parent.__injected = true</script>"></iframe>';
    document.body.append(injected);
    await new Promise((resolve) => setTimeout(resolve, 500));
    return (window as unknown as { __injected?: boolean }).__injected === true;
  });
  expect(ran).toBe(false);
  await expect.poll(() => violations.some((entry) => entry.startsWith("script-src"))).toBe(true);
});

test("no other site can frame the dashboard", async ({ page, baseURL }) => {
  await page.setContent(`<iframe src="${baseURL}/signin" width="600" height="400"></iframe>`);
  const frame = await (await page.waitForSelector("iframe")).contentFrame();
  await frame?.waitForLoadState();
  // A refused frame holds the browser's error page, not ours.
  await page.waitForTimeout(1000);
  expect(await frame?.getByRole("link", { name: "Prepaid VPS" }).count()).toBe(0);
});
