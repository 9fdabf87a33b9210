import { describe, expect, it } from "vitest";
import { defaultHostname, isValidHostname } from "./hostname";

describe("hostnames", () => {
  it.each(["web1", "db-01.example.com", "a", "x".repeat(63), "A1-b2"])("accepts %s", (name) => {
    expect(isValidHostname(name)).toBe(true);
  });

  it.each(["", "-web", "web-", "web_1", "a..b", "x".repeat(64), "héllo", "web 1", `${"a.".repeat(127)}ab`])(
    "refuses %j",
    (name) => {
      expect(isValidHostname(name)).toBe(false);
    },
  );

  it("generates valid, distinct defaults", () => {
    const names = new Set(Array.from({ length: 50 }, () => defaultHostname("pup", "nl")));
    expect(names.size).toBe(50);
    for (const name of names) {
      expect(name).toMatch(/^pup-nl-[a-z2-9]{6}$/);
      expect(isValidHostname(name)).toBe(true);
    }
  });
});
