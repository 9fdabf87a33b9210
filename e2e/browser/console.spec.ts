import { expect, test } from "@playwright/test";
import { api, fundBalance, recordResponseBodies, signUp } from "../support/dashboard";

/** A class name xterm.js gives its input element: present in its code, and in no other script of ours. */
const XTERM_MARKER = "xterm-helper-textarea";

// Taller than the console's section: xterm.js draws nothing while its terminal is out of sight.
test.use({ viewport: { width: 1280, height: 2000 } });

test("the demo console: loaded only when opened, labelled demo, typing, copy and paste, stop and start", async ({
  page,
  request,
  context,
}) => {
  // About 18 s on a quiet machine; a CI run with guests booting beside it once took more than 60 s.
  test.setTimeout(120_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const { apiKey } = await signUp(page);
  await fundBalance(request, apiKey, 25);
  const ordered = await api(request, apiKey, "/servers", "POST", {
    plan: "pup",
    location: "nl",
    os: "debian-12",
    hostname: "demo-con",
  });
  expect(ordered.status).toBe(201);

  const scripts = recordResponseBodies(page, (url) => url.pathname.endsWith(".js"));
  // The console is a section of the server page, with the power buttons beside it.
  await page.goto(`/dashboard/servers/${ordered.body.id}/console`);
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  await page.waitForLoadState("networkidle");
  expect((await scripts()).filter((script) => script.body.includes(XTERM_MARKER))).toEqual([]);

  await page.getByRole("button", { name: "Open console" }).click();
  const terminal = page.getByTestId("console-terminal");
  const status = page.getByTestId("console-status");
  await expect(status).toContainText("Demo");
  await expect(status).toContainText("demo-con's demo console: a pretend shell");
  expect((await scripts()).some((script) => script.body.includes(XTERM_MARKER))).toBe(true);
  await expect(terminal).toContainText("[demo] demo-con is a demo machine");
  await expect(terminal).toContainText("root@demo-con:~#");

  await terminal.click();
  await page.keyboard.type("hostname");
  await page.keyboard.press("Enter");
  const answer = terminal.locator(".xterm-rows > div", { hasText: /^\s*demo-con\s*$/ });
  await expect(answer).toHaveCount(1);

  // The terminal is sized to its box, and the size reaches the other end (the demo shell's `stty size`).
  const size = /(\d+)×(\d+)/.exec((await page.getByText(/^\d+×\d+\./).textContent()) ?? "");
  expect(Number(size?.[1])).toBeGreaterThan(40);
  await page.keyboard.type("stty size");
  await page.keyboard.press("Enter");
  await expect(terminal).toContainText(`${size?.[2]} ${size?.[1]}`);

  // Copy: a double click selects the word, the button puts it on the clipboard.
  const row = await answer.boundingBox();
  expect(row).not.toBeNull();
  // The terminal's screen takes the mouse above its rows: click where the word is drawn.
  await page.mouse.dblclick((row?.x ?? 0) + 12, (row?.y ?? 0) + (row?.height ?? 0) / 2);
  await page.getByRole("button", { name: "Copy selection" }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("demo-con");
  // Paste: the button types the clipboard into the console.
  await page.evaluate(() => navigator.clipboard.writeText("echo from-the-clipboard"));
  await page.getByRole("button", { name: "Paste" }).click();
  await expect(terminal).toContainText("echo from-the-clipboard");
  await terminal.click();
  await page.keyboard.press("Enter");
  await expect(terminal.locator(".xterm-rows > div", { hasText: /^\s*from-the-clipboard\s*$/ })).toHaveCount(
    1,
  );

  // Stopping the machine ends its console with that reason; starting it again reconnects by itself.
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await expect(status).toContainText("The machine is stopped: start it to use its console.");
  await page.getByRole("button", { name: "Start", exact: true }).click();
  await expect(status).toContainText("demo-con's demo console");

  await page.getByRole("button", { name: "Close console" }).click();
  await expect(page.getByRole("button", { name: "Open console" })).toBeVisible();
});
