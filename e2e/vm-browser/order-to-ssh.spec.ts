/**
 * The dashboard path to a real machine: sign up, top up (demo payment), order on the order page, wait for
 * active, read the host key fingerprint and SSH command, reveal the password, and log in over SSH with
 * exactly what the page shows; then the same machine through the page's serial console: log in, paste,
 * reboot and watch it boot, stop. The machine is the tiny TEST guest (busybox + dropbear), not Debian.
 */
import { expect, type Page, test } from "@playwright/test";
import { api, signUp } from "../support/dashboard";
import { sshWhenUp } from "../vm/host";

/** Presses Enter in the console until the guest's login prompt shows (it may still be booting). */
async function untilLoginPrompt(page: Page, hostname: string) {
  const terminal = page.getByTestId("console-terminal");
  await expect(async () => {
    await page.keyboard.press("Enter");
    await expect(terminal).toContainText(`${hostname} login:`, { timeout: 3_000 });
  }).toPass({ timeout: 90_000 });
}

// Taller than the whole server page: xterm.js draws nothing while its terminal is out of sight, and the
// power buttons clicked below sit far above it.
test.use({ viewport: { width: 1280, height: 5000 } });

test("order on the dashboard, log in over SSH with the shown port, host key and password, then on the serial console", async ({
  page,
  request,
  context,
}) => {
  test.setTimeout(480_000);
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

  // The serial console, in the server's console section: a login prompt on ttyS0, root's revealed password,
  // the ordered hostname.
  const id = Number(new URL(page.url()).pathname.split("/").pop());
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page
    .getByRole("navigation", { name: "Server sections" })
    .getByRole("link", { name: "Console" })
    .click();
  await page.getByRole("button", { name: "Open console" }).click();
  const terminal = page.getByTestId("console-terminal");
  const status = page.getByTestId("console-status");
  await expect(status).toContainText("Connected to web-vm's serial console");
  await terminal.click();
  await untilLoginPrompt(page, "web-vm");
  await page.keyboard.type("root");
  await page.keyboard.press("Enter");
  await expect(terminal).toContainText("Password:");
  await page.keyboard.type(password);
  await page.keyboard.press("Enter");
  await expect(terminal).toContainText("~ #");
  await page.keyboard.type("hostname");
  await page.keyboard.press("Enter");
  await expect(terminal.locator(".xterm-rows > div", { hasText: /^\s*web-vm\s*$/ })).toHaveCount(1);
  // Pasting (the button reads the clipboard): the shell runs what was pasted.
  await page.evaluate(() => navigator.clipboard.writeText("echo pasted-$((6 * 7))"));
  await page.getByRole("button", { name: "Paste" }).click();
  await expect(terminal).toContainText("echo pasted-$((6 * 7))");
  await terminal.click();
  await page.keyboard.press("Enter");
  await expect(terminal).toContainText("pasted-42");

  // Reboot from the page: the same console shows the kernel's boot log, then the login prompt again.
  await page.getByRole("button", { name: "Reboot", exact: true }).click();
  await expect(terminal).toContainText(/\[\s*\d+\.\d{6}\]/, { timeout: 90_000 });
  await terminal.click();
  await untilLoginPrompt(page, "web-vm");
  await expect(status).toContainText("Connected to web-vm's serial console");

  // Stopped: the open console says so, and so does opening it again.
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  // A guest that ignores the shutdown request is forced off after SERVER_STOP_TIMEOUT_SECONDS (60): wait past it.
  await expect(status).toContainText("The machine is stopped", { timeout: 120_000 });
  // The console ends as the guest goes down; the server's record says stopped once the stop job has seen it,
  // and the power panel beside the console then offers Start and no longer Stop.
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeDisabled({ timeout: 60_000 });
  await expect(page.getByRole("button", { name: "Start", exact: true })).toBeEnabled();
  await page.getByRole("button", { name: "Close console" }).click();
  await page.getByRole("button", { name: "Open console" }).click();
  await expect(status).toContainText("The server is stopped: start it, then open its console.");

  expect((await api(request, apiKey, `/servers/${id}`, "DELETE")).status).toBe(200);
});
