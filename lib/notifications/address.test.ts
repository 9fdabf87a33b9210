import { describe, expect, it } from "vitest";
import { addressRefusal, checkUrl } from "./address";

const production = { allowLoopback: false, httpsOnly: true };
const tests = { allowLoopback: true, httpsOnly: false };

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
  ])("%s is refused (%s)", (address, words) => {
    expect(addressRefusal(address, production)).toContain(words);
  });

  it.each(["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:1.1.1.1"])(
    "%s is public",
    (address) => {
      expect(addressRefusal(address, production)).toBeUndefined();
    },
  );

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
    expect(problem("https://93.184.216.34:8443/hook")).toBeUndefined();
    expect(problem("https://127.0.0.1/")).toBeUndefined();
    expect(problem("http://hooks.example.com/vps")).toBe("Only https URLs are accepted.");
    expect(problem("http://hooks.example.com/vps", tests)).toBeUndefined();
  });

  it("refuses other schemes, credentials, fragments and overlong URLs", () => {
    expect(problem("ftp://example.com/")).toMatch(/absolute http\(s\) URL/);
    expect(problem("not a url")).toMatch(/absolute http\(s\) URL/);
    expect(problem("https://user:pw@example.com/")).toMatch(/user name or password/);
    expect(problem("https://example.com/#x")).toMatch(/fragment/);
    expect(problem(`https://example.com/${"a".repeat(2100)}`)).toMatch(/longer than 2048/);
  });
});
