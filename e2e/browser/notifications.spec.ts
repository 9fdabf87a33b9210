import { expect, test } from "@playwright/test";
import { signUpWithServer } from "../support/dashboard";
import { startReceiver, verified } from "../support/webhook-receiver";

test("add a webhook, send a test, see it delivered; the server page says when it warns before expiry", async ({
  page,
  request,
}) => {
  const receiver = await startReceiver();
  try {
    const { id } = await signUpWithServer(page, request);
    // Before any endpoint, the server page says no warning will come, and where to add one.
    await page.goto(`/dashboard/servers/${id}`);
    await expect(page.getByTestId("expiry-warnings")).toContainText("No warning before expiry");

    await page.getByRole("link", { name: "Notifications" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Notifications" })).toBeVisible();
    await expect(page.getByTestId("no-webhooks")).toBeVisible();
    // The new endpoint's delivery log loads at once; its first answer is held back until the test below is
    // queued (a slow network), so it arrives with no test in it: the page must still come to show the test.
    let releaseFirstLog = () => {};
    const firstLogHeld = new Promise<void>((resolve) => {
      releaseFirstLog = resolve;
    });
    let firstLog = true;
    await page.route("**/bff/webhooks/*/deliveries*", async (route) => {
      if (!firstLog) return route.continue();
      firstLog = false;
      const response = await route.fetch();
      await firstLogHeld;
      // The page may have given up on this request meanwhile (cancelled it to load afresh).
      await route.fulfill({ response }).catch(() => undefined);
    });
    await page.getByLabel("Webhook URL").fill(`${receiver.url}/dashboard`);
    await page.getByLabel("Description (optional)").fill("my receiver");
    // Every event is picked by default; this one is left out.
    await page.getByRole("checkbox", { name: /console\.opened/ }).uncheck();
    await page.getByRole("button", { name: "Add webhook" }).click();
    const secret = (await page.getByTestId("webhook-secret").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);

    const card = page.getByTestId("webhook").filter({ hasText: "my receiver" });
    await expect(card).toContainText(`${receiver.url}/dashboard`);
    await expect(card.getByTestId("webhook-state")).toHaveText("on");
    await expect(card).not.toContainText("console.opened");

    await card.getByRole("button", { name: "Send test" }).click();
    await expect(card.getByTestId("webhook-notice")).toHaveText("Test event queued.");
    releaseFirstLog();
    await card.getByText("Deliveries", { exact: true }).click();
    const delivery = card.getByTestId("delivery").filter({ hasText: "webhook.test" });
    // Loaded again once the test was queued, not at the log's next idle poll 15 s later.
    await expect(delivery).toBeVisible({ timeout: 8_000 });
    await expect(delivery.getByTestId("delivery-state")).toHaveText("delivered", { timeout: 15_000 });
    await delivery.getByRole("button", { name: "Attempts (1)" }).click();
    await expect(delivery.getByTestId("attempt")).toContainText("HTTP 200");

    // The receiver got it, signed with the secret the page showed (beside, perhaps, the server's own
    // server.active, when its two-second build ended after the webhook was added).
    const tests = () =>
      receiver.received.filter(
        (r) => r.path === "/dashboard" && (JSON.parse(r.body) as { type: string }).type === "webhook.test",
      );
    const arrived = tests();
    expect(arrived).toHaveLength(1);
    expect(verified(arrived[0] as never, secret).type).toBe("webhook.test");

    // Redeliver: the same event again, and the log shows the second attempt.
    await delivery.getByRole("button", { name: "Redeliver" }).click();
    await expect(delivery.getByTestId("attempt")).toHaveCount(2, { timeout: 15_000 });
    expect(tests()[1]?.headers["webhook-id"]).toBe(arrived[0]?.headers["webhook-id"]);

    // Now the server page names the warnings (3 days and 1 day before expiry) and the one endpoint.
    await page.goto(`/dashboard/servers/${id}`);
    await expect(page.getByTestId("expiry-warnings")).toContainText(
      /Warned 3 days before \(.+ UTC\) and 1 day before \(.+ UTC\) through 1 endpoint/,
    );
  } finally {
    await receiver.close();
  }
});
