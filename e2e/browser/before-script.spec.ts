import { expect, type Page, test } from "@playwright/test";
import { api, signUp } from "../support/dashboard";

// The dashboard's forms and buttons run on script. Before it has loaded (a slow network, a busy machine, or
// none at all), a submit would go out natively (a GET to the page with every field, a login token included, in
// the address) and any other button would do nothing.

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

test("before its script runs, no button of a signed-in page can be pressed, and no form sent", async ({
  browser,
  page,
  request,
}, testInfo) => {
  const { apiKey } = await signUp(page);
  const topup = await api(request, apiKey, "/topups", "POST", { amount: 30, coin: "BTC" });
  expect(topup.status).toBe(201);
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: false,
  });
  await context.addCookies(await page.context().cookies());
  const bare = await context.newPage();
  const withForms = [
    "/dashboard/keys",
    "/dashboard/security",
    "/dashboard/topups",
    "/dashboard/notifications",
  ];
  for (const path of [...withForms, `/dashboard/topups/${topup.body.ref}`]) {
    await bare.goto(path);
    const main = bare.getByRole("main");
    await expect(main.getByRole("button", { name: "Sign out" }), path).toBeVisible();
    if (withForms.includes(path)) {
      expect(await main.locator("form button[type=submit]").count(), path).toBeGreaterThan(0);
    }
    for (const button of await main.getByRole("button").all()) await expect(button, path).toBeDisabled();
  }
  // And with script, the same page works: the form makes a key.
  await page.goto("/dashboard/keys");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-key")).toContainText(/^vpsk_/);
  await context.close();
});
