import { describe, expect, it } from "vitest";
import { addressRefusal, checkUrl, portRefusal } from "./address";

const production = { allowLoopback: false, httpsOnly: true, ports: [443] };
const tests = { allowLoopback: true, httpsOnly: false, ports: [443, 80] };

describe("addresses a notification may go to", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.10.0.5", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["10.0.0.1", "private"],
    ["10.255.255.254", "private"],
    ["172.16.3.4", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "metadata"],
    ["169.254.10.1", "link-local"],
    ["fe80::1", "link-local"],
    ["fd00:ec2::254", "metadata"],
    ["fc00::5", "unique local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.100.100.200", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.10", "reserved"],
    ["64:ff9b::7f00:1", "special-purpose"],
    ["2002:7f00:1::", "special-purpose"],
    ["::ffff:10.0.0.1", "private"],
    // IPv4-compatible (::a.b.c.d, ::/96): judged as the IPv4 address it carries.
    ["::7f00:1", "loopback"],
    ["::127.0.0.1", "loopback"],
    ["::10.0.0.1", "private"],
    ["::a9fe:a9fe", "metadata"],
    // Outside 2000::/3, or special within it: not global unicast.
    ["4000::1", "not a global unicast address"],
    ["8000::1", "not a global unicast address"],
    ["200::1", "not a global unicast address"],
    ["5f00::1", "special-purpose"],
    ["2001:db8::1", "reserved"],
    ["2001::1", "special-purpose"],
    ["3fff::1", "reserved"],
  ])("%s is refused (%s)", (address, words) => {
    expect(addressRefusal(address, production)).toContain(words);
  });

  it.each([
    "93.184.216.34",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001::1",
    "::ffff:1.1.1.1",
    "::5db8:d822",
  ])("%s is public", (address) => {
    expect(addressRefusal(address, production)).toBeUndefined();
  });

  it("loopback only where the test setting allows it, and nothing else private even then", () => {
    expect(addressRefusal("127.0.0.1", tests)).toBeUndefined();
    expect(addressRefusal("::1", tests)).toBeUndefined();
    expect(addressRefusal("10.0.0.1", tests)).toContain("private");
    expect(addressRefusal("169.254.169.254", tests)).toContain("metadata");
  });
});

describe("URLs a notification may go to", () => {
  const problem = (text: string, policy = production) => {
    const checked = checkUrl(text, policy);
    return "problem" in checked ? checked.problem : undefined;
  };

  it("takes well-formed https URLs (their host is judged once resolved), and http ones outside production", () => {
    expect(problem("https://hooks.example.com/vps?x=1")).toBeUndefined();
    expect(problem("https://hooks.example.com:443/vps")).toBeUndefined();
    expect(problem("https://127.0.0.1/")).toBeUndefined();
    expect(problem("http://hooks.example.com/vps")).toBe("Only https URLs are accepted.");
    expect(problem("http://hooks.example.com/vps", tests)).toBeUndefined();
  });

  it("takes port 443, and 80 outside production, and other ports only where the operator allows them", () => {
    expect(problem("https://93.184.216.34:8443/hook")).toBe(
      "Port 8443 is not accepted: notifications are sent to port 443.",
    );
    expect(problem("https://hooks.example.com:22/")).toMatch(/^Port 22 is not accepted/);
    expect(problem("https://hooks.example.com:6379/")).toMatch(/^Port 6379 is not accepted/);
    expect(problem("https://hooks.example.com:80/")).toMatch(/^Port 80 is not accepted/);
    expect(problem("http://hooks.example.com/", { ...tests, allowLoopback: false })).toBeUndefined();
    expect(problem("http://hooks.example.com:25/", { ...tests, allowLoopback: false })).toBe(
      "Port 25 is not accepted: notifications are sent to ports 443 and 80.",
    );
    expect(problem("https://93.184.216.34:8443/hook", { ...production, ports: [443, 8443] })).toBeUndefined();
  });

  it("leaves the port of a loopback receiver to the address check where tests allow loopback", () => {
    // Tests run receivers on any free port of loopback: the port is judged once the address is known.
    expect(problem("http://127.0.0.1:41234/", tests)).toBeUndefined();
    expect(portRefusal(new URL("http://127.0.0.1:41234/"), tests, "127.0.0.1")).toBeUndefined();
    expect(portRefusal(new URL("http://93.184.216.34:41234/"), tests, "93.184.216.34")).toMatch(
      /^Port 41234 is not accepted/,
    );
    expect(
      portRefusal(new URL("http://127.0.0.1:41234/"), { ...tests, allowLoopback: false }, "127.0.0.1"),
    ).toMatch(/^Port 41234 is not accepted/);
  });

  it("refuses other schemes, credentials, fragments and overlong URLs", () => {
    expect(problem("ftp://example.com/")).toMatch(/absolute http\(s\) URL/);
    expect(problem("not a url")).toMatch(/absolute http\(s\) URL/);
    expect(problem("https://user:pw@example.com/")).toMatch(/user name or password/);
    expect(problem("https://example.com/#x")).toMatch(/fragment/);
    expect(problem(`https://example.com/${"a".repeat(2100)}`)).toMatch(/longer than 2048/);
  });
});
