import { expect, test } from "@playwright/test";
import { type RunningApp, startApp } from "../support/app-server";
import { signUp } from "../support/dashboard";

/**
 * A server whose period lapses, on the simulated provisioner, with business time moved by the test clock:
 * an app of its own, since moving its clock would disturb every other spec sharing one.
 */
let app: RunningApp;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  app = await startApp({ ENABLE_TEST_CLOCK: "1", PROVISION_DELAY_SECONDS: "1", WATCHER_INTERVAL_MS: "300" });
});

test.afterAll(async () => {
  await app?.stop();
});

/** How the dashboard writes a moment: "2026-05-03 10:00 UTC". */
const shown = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

test("a lapsed server's page names the last day its disk is kept, and renewing there brings it back", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { apiKey, loginToken } = await signUp(page, app.url);
  const call = async (path: string, method = "GET", body?: unknown) => {
    const response = await fetch(`${app.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  const server = async () => call(`/servers/${id}`);
  const topup = await call("/topups", "POST", { amount: 30, coin: "USDTTRC" });
  await call(`/demo/topups/${topup.ref}/pay`, "POST", {});
  await expect
    .poll(async () => (await call(`/topups/${topup.ref}`)).status, { timeout: 20_000 })
    .toBe("completed");
  const ordered = await call("/servers", "POST", {
    plan: "pup",
    location: "nl",
    os: "debian-13",
    hostname: "lapsing",
  });
  const id = ordered.id as number;
  await expect.poll(async () => (await server()).status, { timeout: 20_000 }).toBe("active");
  const before = await server();

  await page.goto(`${app.url}/dashboard/servers/${id}`);
  await expect(page.getByTestId("server-status")).toHaveText("active");
  await expect(page.getByTestId("retention-notice")).toHaveCount(0);

  // Unpaid (auto-renew is off): suspended at expiry, terminated after the 7-day grace period.
  const advance = (seconds: number) => call("/demo/clock", "POST", { advance_seconds: seconds });
  await advance(32 * 86_400);
  await expect.poll(async () => (await server()).status, { timeout: 30_000 }).toBe("suspended");
  await advance(8 * 86_400);
  await expect.poll(async () => (await server()).status, { timeout: 30_000 }).toBe("terminated");
  const lapsed = await server();
  const keptUntil = lapsed.retained_until as string;
  expect(Date.parse(keptUntil) - Date.parse(lapsed.terminated_at as string)).toBe(14 * 86_400_000);

  // Forty days on, the dashboard session (7 days) has ended: the customer signs in again and opens the server.
  // The open tab's own polling may be sending it to the sign-in page right now; a new tab does not race that.
  const later = await page.context().newPage();
  await page.close();
  await later.goto(`${app.url}/dashboard/servers/${id}`);
  await expect(later.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  await later.getByLabel("Login token").fill(loginToken);
  await later.getByRole("button", { name: "Sign in" }).click();
  await expect(later.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await later.goto(`${app.url}/dashboard/servers/${id}`);
  await expect(later.getByTestId("server-status")).toHaveText("terminated");
  await expect(later.getByTestId("retention-notice")).toHaveText(
    `Its period lapsed, but its disk is kept until ${shown(keptUntil)}. Renew it before then and it comes ` +
      "back on that disk, on the same address where it is still free.",
  );
  // Renewal is offered (by hand only), with its price; power, console and termination are not.
  const renew = later.getByRole("button", {
    name: `Renew for one month ($${(before.price_usd as number).toFixed(2)})`,
  });
  await expect(renew).toBeVisible();
  await expect(later.getByLabel("Renew automatically from the balance")).toHaveCount(0);
  const sections = later.getByRole("navigation", { name: "Server sections" });
  await sections.getByRole("link", { name: "Console" }).click();
  await expect(later.getByTestId("section-unavailable")).toHaveText(
    "The console opens while the server is active.",
  );
  await expect(later.getByRole("button", { name: "Open console" })).toHaveCount(0);
  await sections.getByRole("link", { name: "Settings" }).click();
  await expect(later.getByTestId("section-unavailable")).toContainText("This server is terminated");
  await expect(later.getByRole("button", { name: "Terminate server" })).toHaveCount(0);
  await sections.getByRole("link", { name: "Overview" }).click();

  await renew.click();
  await expect(later.getByTestId("server-notice")).toHaveText("Renewed.");
  await expect(later.getByTestId("server-status")).toHaveText("active", { timeout: 30_000 });
  await expect(later.getByTestId("retention-notice")).toHaveCount(0);
  expect(await server()).toMatchObject({ status: "active", retained_until: null, ip: before.ip });
});
