import { expect, test } from "@playwright/test";
import { api, signUpWithServer } from "../support/dashboard";

test("snapshots from the server page: take, list, restore after typing the host name, delete; a reinstall keeps one first", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { apiKey, id, hostname } = await signUpWithServer(page, request);
  const listed = async () => (await api(request, apiKey, `/servers/${id}/snapshots`)).body;

  await page.goto(`/dashboard/servers/${id}`);
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  // The server page's sections are pages of their own: snapshots are under theirs.
  const sections = page.getByRole("navigation", { name: "Server sections" });
  await sections.getByRole("link", { name: "Snapshots & rescue" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/servers/${id}/snapshots$`));
  await expect(sections.getByRole("link", { name: "Snapshots & rescue" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  const panel = page.getByRole("region", { name: "Snapshots", exact: true });
  await expect(panel.getByTestId("no-snapshots")).toBeVisible();
  const catalog = (await api(request, apiKey, "/catalog")).body;
  await expect(panel).toContainText(`a server keeps up to ${catalog.snapshots.per_server}`);

  // Take: listed while it is copied, then ready, and the API lists the same one.
  await panel.getByLabel("Name (optional)").fill("Before the upgrade");
  await panel.getByRole("button", { name: "Take snapshot" }).click();
  const row = panel.getByTestId("snapshot").filter({ hasText: "Before the upgrade" });
  await expect(row).toBeVisible();
  await expect(row.getByTestId("snapshot-state")).toHaveText("ready", { timeout: 20_000 });
  await expect(row).toContainText("just now");
  await expect(row).toContainText("filesystems frozen");
  const [snapshot] = (await listed()).snapshots;
  expect(snapshot).toMatchObject({ name: "Before the upgrade", kind: "manual", state: "available" });

  // Restore asks for the host name and names what is lost; until it is typed nothing happens.
  const before = (await api(request, apiKey, `/servers/${id}`)).body;
  await panel.getByRole("button", { name: "Restore Before the upgrade" }).click();
  await expect(panel.getByTestId("restore-warning")).toContainText(
    "Restoring “Before the upgrade” returns the disk to",
  );
  await expect(panel.getByTestId("restore-warning")).toContainText(
    "everything written to it since then is lost",
  );
  const confirm = panel.getByRole("button", { name: "Restore snapshot" });
  await expect(confirm).toBeDisabled();
  await panel.getByLabel("Host name to confirm restore").fill("not-the-name");
  await expect(confirm).toBeDisabled();
  expect((await api(request, apiKey, `/servers/${id}`)).body.status).toBe("active");
  await panel.getByLabel("Host name to confirm restore").fill(hostname);
  await confirm.click();

  // The server restarts on the snapshot's disk and keeps its address and paid period.
  await expect(page.getByTestId("server-status-reason")).toContainText(
    'Restoring the snapshot "Before the upgrade"',
  );
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  await expect(panel.getByTestId("restore-warning")).toHaveCount(0);
  const after = (await api(request, apiKey, `/servers/${id}`)).body;
  expect(after).toMatchObject({ status: "active", ip: before.ip, expires_at: before.expires_at });
  expect((await listed()).snapshots).toHaveLength(1);

  // Automatic snapshots: daily at 03:00 UTC, which the API then has, with its next run; then off again.
  await panel.getByLabel("Take one").selectOption("daily");
  await panel.getByLabel("At (UTC)").selectOption("3");
  await panel.getByRole("button", { name: "Save schedule" }).click();
  await expect(panel.getByTestId("snapshot-schedule")).toContainText(
    /^Daily at 03:00 UTC; next \d{4}-\d\d-\d\d 03:00 UTC\./,
  );
  expect((await listed()).schedule).toMatchObject({ frequency: "daily", hour: 3, weekday: null });
  await panel.getByLabel("Take one").selectOption("weekly");
  await panel.getByLabel(/^On/).selectOption("sunday");
  await panel.getByRole("button", { name: "Save schedule" }).click();
  await expect(panel.getByTestId("snapshot-schedule")).toContainText(/^Every Sunday at 03:00 UTC/);
  await panel.getByLabel("Take one").selectOption("off");
  await panel.getByRole("button", { name: "Save schedule" }).click();
  await expect(panel.getByTestId("snapshot-schedule")).toContainText(/^Off\./);
  expect((await listed()).schedule).toBeNull();

  // Delete: gone from the page and from the API.
  await panel.getByRole("button", { name: "Delete Before the upgrade" }).click();
  await expect(panel.getByTestId("no-snapshots")).toBeVisible({ timeout: 20_000 });
  expect((await listed()).snapshots).toEqual([]);

  // A reinstall (under Settings) with "Take a snapshot first" (the default) leaves the old disk listed.
  await sections.getByRole("link", { name: "Settings" }).click();
  await expect(page.getByLabel("Take a snapshot first")).toBeChecked();
  await page.getByLabel("Host name to confirm reinstall").fill(hostname);
  await page.getByRole("button", { name: "Reinstall server" }).click();
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 30_000 });
  await sections.getByRole("link", { name: "Snapshots & rescue" }).click();
  await expect(panel.getByTestId("snapshot").filter({ hasText: "Before reinstall" })).toBeVisible({
    timeout: 20_000,
  });
  expect((await listed()).snapshots).toMatchObject([{ kind: "reinstall" }]);
});

test("rescue mode from the server page: boot it, reveal its password, leave it", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { apiKey, id } = await signUpWithServer(page, request);

  // A section's own address opens it directly.
  await page.goto(`/dashboard/servers/${id}/snapshots`);
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  const panel = page.getByRole("region", { name: "Rescue mode" });
  await panel.getByRole("button", { name: "Boot rescue system" }).click();
  await expect(panel.getByTestId("rescue-status")).toContainText("The rescue system runs", {
    timeout: 20_000,
  });

  // The temporary password is masked until revealed, and it is the one /credentials gives while in rescue.
  await expect(panel.getByTestId("rescue-password")).toHaveText("••••••••••••");
  await panel.getByRole("button", { name: "Reveal rescue password" }).click();
  const credentials = (await api(request, apiKey, `/servers/${id}/credentials`)).body;
  expect(credentials.rescue_password).toEqual(expect.any(String));
  expect(credentials.rescue_password).not.toBe(credentials.password);
  await expect(panel.getByTestId("rescue-password")).toHaveText(credentials.rescue_password);

  await panel.getByRole("button", { name: "Leave rescue mode" }).click();
  await expect(panel.getByRole("button", { name: "Boot rescue system" })).toBeVisible({ timeout: 20_000 });
  const server = (await api(request, apiKey, `/servers/${id}`)).body;
  expect(server).toMatchObject({ status: "active", rescue: null });
  expect((await api(request, apiKey, `/servers/${id}/credentials`)).body.rescue_password).toBeNull();
});
