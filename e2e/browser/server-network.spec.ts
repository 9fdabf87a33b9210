import { expect, test } from "@playwright/test";
import { api, signUpWithServer } from "../support/dashboard";

test("the Network panel: addresses, PTRs, a firewall rule added, moved and removed, and the simulator's answers", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { apiKey, id } = await signUpWithServer(page, request);
  await page.goto(`/dashboard/servers/${id}/networking`);
  await expect(page.getByTestId("server-status")).toHaveText("active", { timeout: 20_000 });
  // Read once it is built: its addresses are given by the build.
  const server = (await api(request, apiKey, `/servers/${id}`)).body;
  const panel = page.getByRole("region", { name: "Network", exact: true });
  const addresses = panel.getByTestId("network-addresses");
  await expect(addresses).toContainText(server.ip);
  await expect(addresses).toContainText(server.ipv6);
  await expect(addresses).toContainText(server.ipv6_prefix);
  // This deployment keeps no reverse DNS: the generated names are listed as such, and nothing can be set.
  const ptrs = panel.getByTestId("ptr-records");
  await expect(ptrs).toContainText(server.ip);
  await expect(ptrs).toContainText("not managed here");
  await expect(panel.getByRole("button", { name: "Set PTR" })).toHaveCount(0);

  // No rules: the first one warns that inbound is dropped from then on, and is applied before it shows.
  const rules = panel.getByTestId("firewall-rules");
  const form = panel.getByRole("form", { name: "Add a firewall rule" });
  await expect(form).toContainText("accept SSH (22) first");
  await expect(panel.getByTestId("firewall-defaults")).toContainText(
    "Inbound with no matching rule: accepted",
  );
  await expect(panel.getByTestId("firewall-defaults")).toContainText("Outbound mail (port 25): blocked");
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(rules.getByRole("row")).toHaveCount(2);
  await expect(rules).toContainText("tcp 22");
  await expect(panel.getByTestId("firewall-defaults")).toContainText(
    "Inbound with no matching rule: dropped",
  );
  await expect(panel.getByTestId("firewall-state")).toContainText("Applied on the host");

  // A second rule: HTTPS from one network, both families.
  await form.getByLabel("Ports").fill("443");
  await form.getByLabel("From (networks)").fill("198.51.100.0/24, 2001:db8:beef::/48");
  await form.getByLabel("Note").fill("web from the office");
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(rules.getByRole("row")).toHaveCount(3);
  await expect(rules).toContainText("198.51.100.0/24, 2001:db8:beef::/48");

  // A bad one is refused with the API's words, and nothing changes.
  await form.getByLabel("From (networks)").fill("10.0.0.0/33");
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(panel.getByTestId("firewall-error")).toContainText("rule 3: sources");
  await expect(rules.getByRole("row")).toHaveCount(3);

  // The simulator answers from the stored rules, naming the rule.
  const simulate = panel.getByRole("form", { name: "Would a packet pass?" });
  await simulate.getByLabel("Port").fill("443");
  await simulate.getByLabel("Other end (address)").fill("198.51.100.7");
  await simulate.getByRole("button", { name: "Check" }).click();
  await expect(simulate.getByTestId("simulation-result")).toHaveText("Accepted by rule 2.");
  await simulate.getByLabel("Other end (address)").fill("203.0.113.7");
  await simulate.getByRole("button", { name: "Check" }).click();
  await expect(simulate.getByTestId("simulation-result")).toHaveText(
    "Dropped: no rule matched (the default for this direction).",
  );

  // Order: the HTTPS rule moved first; then the SSH rule removed. The API holds the same.
  await panel.getByRole("button", { name: "Move rule 2 up" }).click();
  await expect(rules.getByRole("row").nth(1)).toContainText("tcp 443");
  await panel.getByRole("button", { name: "Remove rule 2" }).click();
  await expect(rules.getByRole("row")).toHaveCount(2);
  const stored = (await api(request, apiKey, `/servers/${id}/firewall`)).body;
  expect(stored.rules).toMatchObject([{ ports: "443", description: "web from the office" }]);
  expect(stored.state).toBe("applied");
});
