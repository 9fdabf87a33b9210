import { createHash } from "node:crypto";
import { expect, test } from "@playwright/test";
import { USER_DATA_EXAMPLE } from "@/components/servers/user-data-example";
import { api, signUpFunded, signUpWithServer } from "../support/dashboard";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

test("a resize from the settings section: the quote first, then the resize at that price, its downtime shown", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { apiKey, id } = await signUpWithServer(page, request);
  await page.goto(`/dashboard/servers/${id}/settings`);
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  const panel = page.getByRole("region", { name: "Resize" });
  const balance = (await api(request, apiKey, "/account")).body.balance_usd as number;

  // The quote is shown before anything is confirmed, and changes nothing.
  await panel.getByLabel("New plan").selectOption("fox");
  await panel.getByRole("button", { name: "Show the price" }).click();
  const quote = panel.getByTestId("resize-quote");
  await expect(quote).toContainText(/Charged now: \$\d+\.\d\d for the \d+ days left of this period\./);
  await expect(quote).toContainText("Each renewal then costs $6.50 a month");
  await expect(quote).toContainText("A later downgrade stays possible (down to Pup).");
  await expect(quote).toContainText(/The machine is down for about \d+ s/);
  expect((await api(request, apiKey, "/account")).body.balance_usd).toBe(balance);
  // Growing the disk asks for a new quote, which says the way back closes.
  await panel.getByLabel(/Grow the disk too/).check();
  await expect(quote).toHaveCount(0);
  await panel.getByRole("button", { name: "Show the price" }).click();
  await expect(quote).toContainText("The disk grows to 40 GB for good");
  await panel.getByLabel(/Grow the disk too/).uncheck();
  await panel.getByRole("button", { name: "Show the price" }).click();
  const charge = /Charged now: \$(\d+\.\d\d)/.exec((await quote.textContent()) ?? "")?.[1];

  await panel.getByRole("button", { name: `Resize to Fox for $${charge}` }).click();
  await expect(panel.getByTestId("resize-status")).toHaveText(
    /^Resized from Pup to Fox: down for [\d.]+ s\.$/,
    {
      timeout: 20_000,
    },
  );
  const server = (await api(request, apiKey, `/servers/${id}`)).body;
  expect(server).toMatchObject({ plan: "fox", price_usd: 6.5, memory_mb: 2048 });
  expect((await api(request, apiKey, "/account")).body.balance_usd).toBeCloseTo(balance - Number(charge), 2);
});

test("cloud-init user data from the order form and the reinstall form, starting from the example", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { apiKey } = await signUpFunded(page, request);
  await page.goto("/dashboard/order");
  await page.getByText("cloud-init user data (optional)").click();
  await page.getByRole("button", { name: "Use the example" }).click();
  await expect(page.getByLabel("User data")).toHaveValue(USER_DATA_EXAMPLE);
  await page.getByRole("button", { name: /^Order for/ }).click();
  await expect(page).toHaveURL(/\/dashboard\/servers\/\d+$/);
  const id = Number(/servers\/(\d+)$/.exec(page.url())?.[1]);
  const ordered = (await api(request, apiKey, `/servers/${id}`)).body;
  expect(ordered.user_data).toEqual({
    sha256: sha256(USER_DATA_EXAMPLE),
    size_bytes: Buffer.byteLength(USER_DATA_EXAMPLE),
  });
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });

  // A reinstall takes its own: not valid here (no #cloud-config or #! line), refused under the field.
  await page
    .getByRole("navigation", { name: "Server sections" })
    .getByRole("link", { name: "Settings" })
    .click();
  await page.getByText("cloud-init user data (optional)").click();
  await page.getByLabel("User data").fill("apt-get install nginx");
  await page.getByLabel("Host name to confirm reinstall").fill(ordered.hostname);
  await page.getByRole("button", { name: "Reinstall server" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "#cloud-config" })).toBeVisible();
  const script = "#!/bin/sh\necho ready > /root/ready\n";
  await page.getByLabel("User data").fill(script);
  await page.getByRole("button", { name: "Reinstall server" }).click();
  await expect(page.getByTestId("reinstall-status")).toContainText("Reinstalling");
  expect((await api(request, apiKey, `/servers/${id}`)).body.user_data.sha256).toBe(sha256(script));
});
