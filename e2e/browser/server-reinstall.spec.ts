import { expect, test } from "@playwright/test";
import { api, signUpWithServer } from "../support/dashboard";

test("a new root password, then a reinstall with another OS after typing the host name", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { apiKey, id, hostname } = await signUpWithServer(page, request);
  const credentials = async () => (await api(request, apiKey, `/servers/${id}/credentials`)).body.password;

  await page.goto(`/dashboard/servers/${id}`);
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  const original = await credentials();

  // A new root password: shown once set, and the one the credentials endpoint now reveals.
  await page.getByRole("button", { name: "Set a new root password" }).click();
  const shown = page.getByTestId("new-root-password");
  await expect(shown).toHaveText(/^.{24}$/);
  const changed = (await shown.textContent()) ?? "";
  expect(changed).not.toBe(original);
  expect(await credentials()).toBe(changed);
  await page.getByRole("button", { name: "Hide new password" }).click();
  await expect(shown).toHaveCount(0);

  // Reinstall (under Settings) waits for the exact host name; a wrong one leaves the server as it is.
  await page.getByRole("button", { name: "Reveal password" }).click();
  await expect(page.getByTestId("root-password")).toHaveText(changed);
  const sections = page.getByRole("navigation", { name: "Server sections" });
  await sections.getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/servers/${id}/settings$`));
  await page.getByLabel("Operating system").selectOption({ label: "Debian 12 (Bookworm)" });
  const reinstall = page.getByRole("button", { name: "Reinstall server" });
  await expect(reinstall).toBeDisabled();
  await page.getByLabel("Host name to confirm reinstall").fill("not-the-name");
  await expect(reinstall).toBeDisabled();
  const before = (await api(request, apiKey, `/servers/${id}`)).body;
  expect(before).toMatchObject({ status: "active", os: "debian-13" });
  await page.getByLabel("Host name to confirm reinstall").fill(hostname);
  await reinstall.click();

  // Pending while it runs, then active with the new system; the overview's login is masked again.
  await expect(page.getByTestId("reinstall-status")).toContainText("Reinstalling debian-12");
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  await expect(page.getByTestId("reinstall-status")).toContainText("Reinstalled with debian-12");
  const after = (await api(request, apiKey, `/servers/${id}`)).body;
  expect(after).toMatchObject({
    status: "active",
    os: "debian-12",
    ip: before.ip,
    expires_at: before.expires_at,
  });

  // The new password through the existing reveal, on the overview.
  await sections.getByRole("link", { name: "Overview" }).click();
  await expect(page.getByTestId("root-password")).toHaveText("••••••••••••");
  await page.getByRole("button", { name: "Reveal password" }).click();
  const revealed = page.getByTestId("root-password");
  await expect(revealed).not.toHaveText("••••••••••••");
  const fresh = (await revealed.textContent()) ?? "";
  expect(fresh).not.toBe(changed);
  expect(fresh).toBe(await credentials());

  // A stopped server cannot take a new password.
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByTestId("power-state")).toHaveText("stopped");
  await expect(page.getByRole("button", { name: "Set a new root password" })).toBeDisabled();
});
