import { describe, expect, it } from "vitest";
import { appMode } from "@/lib/config/mode";
import { requestOrigin } from "./origin";
import { areaOf, newNonce, pageCsp, pathDecodes } from "./security-headers";

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

describe("security headers", () => {
  it("lets scripts run only with the response's nonce, and frames nowhere", () => {
    const nonce = newNonce();
    const csp = pageCsp({ nonce, mode: "demo", development: false });
    const scripts = csp.split("; ").find((d) => d.startsWith("script-src"));
    expect(scripts).toBe(`script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(pageCsp({ nonce, mode: "production", development: false })).toContain("upgrade-insecure-requests");
    expect(newNonce()).not.toBe(nonce);
    expect(Buffer.from(nonce, "base64")).toHaveLength(16);
  });

  it("tells undecodable paths and the app's areas apart", () => {
    expect(pathDecodes("/api/v1/servers/%ff")).toBe(false);
    expect(pathDecodes("/dashboard/topups/%E0%A4%A")).toBe(false);
    expect(pathDecodes("/api/v1/servers/12")).toBe(true);
    expect(pathDecodes("/dashboard/caf%C3%A9")).toBe(true);
    expect(areaOf("/api/v1/account")).toBe("api");
    expect(areaOf("/bff/keys")).toBe("bff");
    expect(areaOf("/bffx")).toBe("page");
    expect(areaOf("/dashboard")).toBe("page");
  });

  it("knows production mode as the configuration does", () => {
    expect(appMode({})).toBe("demo");
    expect(appMode({ SESSION_SECRET: "s".repeat(32) })).toBe("production");
    expect(appMode({ ENCRYPTION_KEY: "" })).toBe("demo");
    expect(appMode({ APP_MODE: "demo", SESSION_SECRET: "s".repeat(32) })).toBe("demo");
    expect(appMode({ APP_MODE: "production" })).toBe("production");
  });
});
