import { expect, test } from "@playwright/test";

test("the start page shows every plan with its price and links to the API reference", async ({
  page,
  request,
}) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("prepaid balance");
  const catalog = (await (await request.get("/api/v1/catalog")).json()) as {
    plans: Array<{ id: string }>;
    pricing: { prices: Array<{ plan: string; monthly_usd: number }> };
  };
  const rows = page.getByRole("table", { name: /plans/i }).getByRole("row");
  await expect(rows).toHaveCount(catalog.plans.length + 1);
  // The cheapest price shown for the smallest plan is the API's cheapest price for it.
  const pupPrices = catalog.pricing.prices.filter((p) => p.plan === "pup").map((p) => p.monthly_usd);
  const cheapest = Math.min(...pupPrices).toFixed(2);
  await expect(page.getByRole("row", { name: /Pup/ })).toContainText(`$${cheapest}`);

  await page.getByRole("link", { name: "Read the API reference" }).click();
  await expect(page).toHaveURL(/\/docs\/api$/);
  await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();

  // Every page's footer leads a customer to the guide (errors, limits, keys) and to the status page.
  await page.goto("/");
  const footer = page.getByRole("navigation", { name: "Footer" });
  await expect(footer.getByRole("link", { name: "Status" })).toHaveAttribute("href", "/status");
  await footer.getByRole("link", { name: "API guide" }).click();
  await expect(page).toHaveURL(/\/docs\/api#guide$/);
  await expect(page.getByRole("heading", { level: 2, name: "Guide" })).toBeInViewport();
});

test("the API reference documents every v1 endpoint from the OpenAPI document, a page per tag", async ({
  page,
  request,
}) => {
  // A page per tag, each loaded in turn: a busy machine takes seconds a page.
  test.setTimeout(180_000);
  const document = (await (await request.get("/api/v1/openapi.json")).json()) as {
    tags: { name: string }[];
    paths: Record<string, Record<string, { operationId: string; tags: string[]; "x-scope"?: string }>>;
  };
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, ...operation })),
  );
  await page.goto("/docs/api");
  const index = page.getByRole("navigation", { name: "Endpoints" });
  // The index links every operation to its section on its tag's page.
  const links = await index
    .locator("li a")
    .evaluateAll((anchors) => anchors.map((a) => a.getAttribute("href")));
  expect(links.map((href) => href?.split("#")[1]).sort()).toEqual(
    operations.map((o) => o.operationId).sort(),
  );
  // The guide (docs/api-guide.md) carries the prose the operations share.
  const guide = page.locator("section", { has: page.locator("h2#guide") });
  await expect(
    guide.getByRole("listitem").filter({ hasText: /^Errors: always \{error, message\}/ }),
  ).toBeVisible();
  await expect(guide).toContainText("Idempotency-Key");

  // Each tag's page from its link in the index (the first one followed by a click), every operation of the tag
  // in a section named by its operationId, headed by its method and path (read in one go per page).
  const tagLinks = await index
    .getByRole("link")
    .evaluateAll((anchors) =>
      Object.fromEntries(
        anchors
          .map((a): [string, string] => [a.textContent?.trim() ?? "", a.getAttribute("href") ?? ""])
          .filter(([, href]) => !href.includes("#")),
      ),
    );
  for (const [position, tag] of document.tags.entries()) {
    if (position === 0) await index.getByRole("link", { name: tag.name, exact: true }).click();
    else await page.goto(tagLinks[tag.name] ?? `/docs/api/missing-link-for-${tag.name}`);
    await expect(page.getByRole("heading", { level: 1, name: tag.name })).toBeVisible();
    const headings = await page
      .locator("section[id]")
      .evaluateAll((sections) =>
        Object.fromEntries(
          sections.map((section) => [section.id, section.querySelector("h2")?.textContent ?? ""]),
        ),
      );
    for (const operation of operations.filter((o) => o.tags.includes(tag.name))) {
      expect(headings[operation.operationId], operation.operationId).toContain(
        `${operation.method}${operation.path}`,
      );
    }
  }
  await page.goto("/docs/api/account");
  await expect(page.locator("section#createAccount")).toContainText("Public: no key needed");
  await expect(page.locator("section#createAccount")).toContainText("login_token");
  await page.goto("/docs/api/keys#listKeys");
  await expect(page.locator("section#listKeys")).toContainText("Requires Authorization: Bearer");
  await expect(page.locator("section#listKeys")).toContainText("holding the scope keys:read");
  // Every scope with the operations that need it, read from the document's x-scope.
  await page.goto("/docs/api#scopes");
  const scopes = page.getByRole("table", { name: "Key scopes" });
  const spend = scopes.getByRole("row", { name: /^billing:spend/ });
  await expect(spend).toContainText("Brings along servers:read, account:read");
  await expect(spend).toContainText("/servers/{id}/renew");
  const scoped = operations.filter((o) => o["x-scope"] !== undefined && o["x-scope"] !== "none");
  expect(scoped.length).toBeGreaterThan(40);
  await expect(scopes.locator("a")).toHaveCount(scoped.length);
  expect((await page.goto("/docs/api/no-such-tag"))?.status()).toBe(404);
});

test("an unknown page shows a friendly 404 with a way back", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await page.getByRole("link", { name: /back to the start page/i }).click();
  await expect(page).toHaveURL(/\/$/);
});

test("the price calculator shows the API's price for plan x location x cycle", async ({ page, request }) => {
  const catalog = (await (await request.get("/api/v1/catalog")).json()) as {
    pricing: { prices: Array<{ plan: string; location: string; monthly_usd: number; annual_usd: number }> };
  };
  const price = (plan: string, location: string) =>
    catalog.pricing.prices.find((p) => p.plan === plan && p.location === location);
  await page.goto("/");
  const calculator = page.getByRole("form", { name: "Price calculator" });
  const shown = calculator.getByTestId("calculated-price");
  for (const [plan, location] of [
    ["fox", "ch"],
    ["wolf", "ro"],
    ["pup", "is"],
  ] as const) {
    await calculator.getByLabel("Plan").selectOption(plan);
    await calculator.getByLabel("Location").selectOption(location);
    await calculator.getByLabel("Billing").selectOption("monthly");
    await expect(shown).toHaveText(`$${price(plan, location)?.monthly_usd.toFixed(2)}`);
    await calculator.getByLabel("Billing").selectOption("annual");
    await expect(shown).toHaveText(
      `$${price(plan, location)?.annual_usd.toLocaleString("en-US", { minimumFractionDigits: 2 })}`,
    );
    await expect(calculator).toContainText("saving");
  }
});
