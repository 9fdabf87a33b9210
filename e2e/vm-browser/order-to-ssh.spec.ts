/**
 * The dashboard path to a real machine: sign up, top up (demo payment), order on the order page, wait for
 * active, read the host key fingerprint and SSH command, reveal the password, and log in over SSH with
 * exactly what the page shows. The machine is the tiny TEST guest (busybox + dropbear), not Debian.
 */
import { expect, test } from "@playwright/test";
import { api, signUp } from "../support/dashboard";
import { sshWhenUp } from "../vm/host";

test("order on the dashboard, then log in over SSH with the shown port, host key and password", async ({
  page,
  request,
}) => {
  const { apiKey } = await signUp(page);

  await page.goto("/dashboard/topups?amount=25.00");
  await page.getByRole("radio", { name: /Bitcoin/ }).check();
  await page.getByRole("button", { name: "Get a deposit address" }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Waiting for payment");
  await page.getByRole("button", { name: /^Simulate paying 0\.\d+ BTC/ }).click();
  await expect(page.getByTestId("topup-phase")).toHaveText("Completed", { timeout: 30_000 });

  await page.getByRole("link", { name: "Order", exact: true }).click();
  await page.getByRole("radio", { name: /^Pup/ }).check();
  await page.getByLabel("Location").selectOption("nl");
  await page.getByLabel("Operating system").selectOption("debian-12");
  await page.getByLabel("Host name (optional)").fill("web-vm");
  await page.getByRole("button", { name: /^Order for/ }).click();

  await expect(page.getByRole("heading", { level: 1, name: "web-vm" })).toBeVisible();
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 150_000 });
  await expect(page.getByTestId("server-provisioner")).toHaveText("Real virtual machine (KVM/QEMU)");
  const fingerprint = ((await page.getByTestId("server-host-key").textContent()) ?? "").trim();
  expect(fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  const command = ((await page.getByTestId("ssh-command").textContent()) ?? "").trim();
  const shown = /^ssh -p (\d+) root@127\.0\.0\.1$/.exec(command);
  expect(shown, command).not.toBeNull();
  await page.getByRole("button", { name: "Reveal password" }).click();
  // Masked until revealed: wait for the mask to give way to the password itself.
  await expect(page.getByRole("button", { name: "Hide password" })).toBeVisible();
  await expect(page.getByTestId("root-password")).toHaveText(/^[!-~]{10,128}$/);
  const password = ((await page.getByTestId("root-password").textContent()) ?? "").trim();

  const port = Number(shown?.[1]);
  expect(await sshWhenUp(port, fingerprint, { password }, "hostname", 90_000)).toBe("web-vm");

  const id = Number(page.url().split("/").pop());
  expect((await api(request, apiKey, `/servers/${id}`, "DELETE")).status).toBe(200);
});
