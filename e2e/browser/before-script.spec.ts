import { expect, type Page, test } from "@playwright/test";
import { signUp } from "../support/dashboard";

// The dashboard's forms run on script. Before it has loaded (a slow network, a busy machine, or none at all),
// a submit would go out natively: a GET to the page with every field, a login token included, in the address.

/** Every request the page sends from now on. */
function recordRequests(page: Page) {
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  return urls;
}

test("before its script runs, the sign-in form sends nothing, and never the token in an address", async ({
  browser,
}, testInfo) => {
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: false,
  });
  const page = await context.newPage();
  await page.goto("/signin");
  const sent = recordRequests(page);
  await page.getByLabel("Login token").fill("AAAA-BBBB-CCCC-DDDD");
  await page.getByLabel("Login token").press("Enter");
  await page.waitForLoadState("networkidle");
  expect(sent.filter((url) => url.includes("AAAA-BBBB"))).toEqual([]);
  expect(new URL(page.url()).search).toBe("");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeDisabled();
  await context.close();
});

test("before its script runs, no form of a signed-in page can be sent", async ({
  browser,
  page,
}, testInfo) => {
  await signUp(page);
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: false,
  });
  await context.addCookies(await page.context().cookies());
  const bare = await context.newPage();
  for (const path of [
    "/dashboard/keys",
    "/dashboard/security",
    "/dashboard/topups",
    "/dashboard/notifications",
  ]) {
    await bare.goto(path);
    await expect(bare.getByRole("main").locator("form").first(), path).toBeVisible();
    const submits = bare.getByRole("main").locator("form button[type=submit]");
    expect(await submits.count(), path).toBeGreaterThan(0);
    for (const submit of await submits.all()) await expect(submit, path).toBeDisabled();
  }
  // And with script, the same page works: the form makes a key.
  await page.goto("/dashboard/keys");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-key")).toContainText(/^vpsk_/);
  await context.close();
});
