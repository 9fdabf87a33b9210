import { describe, expect, it } from "vitest";
import { requestOrigin } from "./origin";

const withHost = (host: string | undefined, url = "http://127.0.0.1:3000/bff/account") =>
  new Request(url, { headers: host === undefined ? {} : { host } });

describe("requestOrigin", () => {
  it("is the origin of a plain host[:port]", () => {
    expect(requestOrigin(withHost("vps.example:8443"))).toBe("http://vps.example:8443");
    expect(requestOrigin(withHost("[::1]:3000"))).toBe("http://[::1]:3000");
    expect(requestOrigin(withHost("VPS.example", "https://x/"))).toBe("https://vps.example");
  });

  it("is nothing for a Host that carries more than a host and port, or none", () => {
    for (const host of ["127.0.0.1:1234/any/path#", "evil@127.0.0.1", "a b", "[", "x:y", "h?q", ""]) {
      expect(requestOrigin(withHost(host)), host).toBeUndefined();
    }
    expect(requestOrigin(withHost(undefined))).toBeUndefined();
  });
});
