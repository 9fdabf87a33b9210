import { type APIRequestContext, expect, type Page } from "@playwright/test";

/** Signs up through the page and lands on the overview; returns both credentials the page showed once. */
export async function signUp(page: Page, baseUrl = ""): Promise<{ apiKey: string; loginToken: string }> {
  await page.goto(`${baseUrl}/signup`);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "cannot be shown again" })).toBeVisible();
  const apiKey = (await page.getByTestId("api-key").textContent()) ?? "";
  const loginToken = (await page.getByTestId("login-token").textContent()) ?? "";
  await page.getByRole("link", { name: /continue to the dashboard/i }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  return { apiKey, loginToken };
}

/** The REST API as a CLI user would call it, with the key the sign-up page showed. */
export async function api(
  request: APIRequestContext,
  key: string,
  path: string,
  method = "GET",
  data?: unknown,
) {
  const response = await request.fetch(`/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}` },
    data,
  });
  return { status: response.status(), body: await response.json() };
}

/** Pays a demo top-up (the deposit watcher then confirms it) and waits for the credit. */
export async function fundBalance(request: APIRequestContext, key: string, usd: number) {
  const created = await api(request, key, "/topups", "POST", { amount: usd, coin: "BTC" });
  expect(created.status).toBe(201);
  expect((await api(request, key, `/demo/topups/${created.body.ref}/pay`, "POST", {})).status).toBe(200);
  await expect
    .poll(async () => (await api(request, key, `/topups/${created.body.ref}`)).body.status, {
      timeout: 20_000,
    })
    .toBe("completed");
}

/** Signs up through the page and funds the balance with `usd` (25 by default). */
export async function signUpFunded(page: Page, request: APIRequestContext, usd = 25) {
  const account = await signUp(page);
  await fundBalance(request, account.apiKey, usd);
  return account;
}

/** Signs up through the page, funds the balance and orders a server (pup, nl, Debian 13) through the API. */
export async function signUpWithServer(page: Page, request: APIRequestContext) {
  const { apiKey } = await signUpFunded(page, request);
  const ordered = await api(request, apiKey, "/servers", "POST", {
    plan: "pup",
    location: "nl",
    os: "debian-13",
  });
  expect(ordered.status).toBe(201);
  return { apiKey, id: ordered.body.id as number, hostname: ordered.body.hostname as string };
}

/**
 * Records the bodies of the responses whose URL matches, from now on. Reading a body is asynchronous, so the
 * returned function waits for every body seen so far before handing them over (no check races a read).
 */
export function recordResponseBodies(page: Page, matches: (url: URL) => boolean) {
  const reads: Promise<{ url: string; body: string }>[] = [];
  page.on("response", (response) => {
    if (!matches(new URL(response.url()))) return;
    reads.push(
      response
        .text()
        .catch(() => "")
        .then((body) => ({ url: response.url(), body })),
    );
  });
  return () => Promise.all(reads);
}
