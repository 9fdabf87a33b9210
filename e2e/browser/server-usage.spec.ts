import { expect, test } from "@playwright/test";
import { signUpWithServer } from "../support/dashboard";

/** A literal of uPlot's (its default grid colour) that survives minification: a chart script holds it. */
const CHART_MARK = "rgba(0,0,0,0.07)";

test("the server page draws its usage graphs with data (demo series), the traffic bar, and loads the charts only there", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { id } = await signUpWithServer(page, request);

  // The chart library is no part of the servers list page.
  const chartScripts: string[] = [];
  page.on("response", async (response) => {
    if (response.request().resourceType() !== "script") return;
    const body = await response.text().catch(() => "");
    if (body.includes(CHART_MARK)) chartScripts.push(response.url());
  });
  await page.goto("/dashboard/servers");
  await page.waitForLoadState("load");
  expect(chartScripts).toEqual([]);

  // Nor of the server's overview: the graphs are a section of their own.
  await page.goto(`/dashboard/servers/${id}`);
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  await page.waitForLoadState("load");
  expect(chartScripts).toEqual([]);
  await page
    .getByRole("navigation", { name: "Server sections" })
    .getByRole("link", { name: "Usage" })
    .click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/servers/${id}/usage$`));
  await expect(page.getByTestId("traffic-used")).toContainText("of 1.00 TB");
  await expect(page.getByRole("progressbar", { name: "Outbound traffic used this period" })).toBeVisible();

  // The demo samples every second here: the graphs appear with points once the first readings are in.
  await page.getByRole("button", { name: "1 hour" }).click();
  await expect(page.getByRole("button", { name: "1 hour" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("usage-demo")).toBeVisible({ timeout: 20_000 });
  for (const chart of ["cpu", "memory", "network", "disk"]) {
    const figure = page.getByTestId(`usage-chart-${chart}`);
    await expect(figure).toBeVisible({ timeout: 20_000 });
    await expect(figure).not.toHaveAttribute("data-points", "0");
    await expect(figure.locator("canvas")).toHaveCount(1);
    await expect(figure.locator("figcaption")).toContainText("now, peak");
  }
  await expect(page.getByTestId("usage-chart-cpu").locator("figcaption")).toContainText(/\d+\.\d %/);
  await expect(page.getByTestId("usage-chart-network").locator("figcaption")).toContainText(/bit\/s/);
  // The canvas holds a drawn line, not an empty frame.
  const painted = await page
    .getByTestId("usage-chart-cpu")
    .locator("canvas")
    .evaluate((canvas: HTMLCanvasElement) => {
      const pixels = canvas.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
      let blue = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        if ((pixels[i + 2] ?? 0) > 150 && (pixels[i] ?? 0) < 100) blue++;
      }
      return blue;
    });
  expect(painted).toBeGreaterThan(10);
  expect(chartScripts.length).toBeGreaterThan(0);

  // Other periods answer from their own resolution: the page asks for 30 days and draws its hourly points.
  const thirtyDays = page.waitForResponse(
    (response) => response.url().endsWith(`/bff/servers/${id}/metrics?period=30d`) && response.ok(),
  );
  await page.getByRole("button", { name: "30 days" }).click();
  await expect(page.getByRole("button", { name: "30 days" })).toHaveAttribute("aria-pressed", "true");
  const monthly = (await (await thirtyDays).json()) as { resolution_seconds: number; timestamps: number[] };
  expect(monthly).toMatchObject({ resolution_seconds: 3600 });
  expect(monthly.timestamps).toHaveLength(720);
  await expect(page.getByRole("button", { name: "1 hour" })).toHaveAttribute("aria-pressed", "false");
  await expect(page.getByTestId("usage-chart-cpu")).not.toHaveAttribute("data-points", "0", {
    timeout: 20_000,
  });
});
