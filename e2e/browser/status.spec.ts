import { expect, test } from "@playwright/test";
import { api, fundBalance } from "../support/dashboard";

test("the status page shows anyone signed out the measured figures, how each is measured, and its charts", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  // A real order (through the API, on this suite's app) whose build ends within the figures' window.
  const created = await request.post("/api/v1/account");
  const { api_key: apiKey } = (await created.json()) as { api_key: string };
  await fundBalance(request, apiKey, 25);
  const ordered = await api(request, apiKey, "/servers", "POST", {
    plan: "pup",
    location: "se",
    os: "ubuntu-24.04",
  });
  expect(ordered.status).toBe(201);
  await expect
    .poll(async () => (await api(request, apiKey, `/servers/${ordered.body.id}`)).body.status, {
      timeout: 30_000,
    })
    .toBe("active");

  // The page has no session cookie: it is read signed out. It follows the order within a second or two.
  await page.goto("/");
  await page.getByRole("contentinfo").getByRole("link", { name: "Status" }).click();
  await expect(page).toHaveURL(/\/status$/);
  await expect(page.getByRole("heading", { level: 1, name: "Status" })).toBeVisible();
  const orders = page.getByTestId("status-orders");
  await expect(async () => {
    await page.reload();
    await expect(
      orders.getByRole("row", { name: /Stockholm, Sweden Ubuntu 24\.04 LTS 24 hours/ }),
    ).toBeVisible({
      timeout: 1_000,
    });
  }).toPass({ timeout: 20_000 });
  const row = orders.getByRole("row", { name: /Stockholm, Sweden Ubuntu 24\.04 LTS 24 hours/ });
  // Orders and success rate, then p50 of the time to active, measured in seconds.
  await expect(row.getByRole("cell").nth(4)).toHaveText(/^\d+(\.\d)? %$/);
  await expect(row.getByRole("cell").nth(5)).toHaveText(/\d s$/);

  // Each figure says how it is measured, beside it.
  await expect(orders).toContainText(
    "From the moment an order is accepted to the moment its server is recorded active",
  );
  await expect(page.getByTestId("status-credits")).toContainText(
    "the time of the block that gave a payment the confirmations",
  );
  await expect(page.getByTestId("status-console")).toContainText("From the issue of a console ticket");
  await expect(page.getByTestId("status-webhooks")).toContainText("the receiver's answer");
  await expect(page.getByTestId("status-parts")).toContainText(/deposits \(simulated\): up/);
  await expect(page.getByTestId("status-demo")).toContainText("no host builds them");

  // The chart library loads as the chart nears the screen, and draws the hour of the order.
  await page.getByTestId("status-chart-slot-to-active").scrollIntoViewIfNeeded();
  const chart = page.getByTestId("status-chart-to-active");
  await expect(chart.locator("canvas")).toBeVisible();
  await expect(chart).not.toHaveAttribute("data-points", "0");
  await expect(chart.locator("figcaption")).toContainText("in the latest hour");
});
