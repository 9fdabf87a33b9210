import { describe, expect, inject, it } from "vitest";
import { randomIp } from "./helpers";

const appUrl = () => inject("baseUrl");

/** Calls a dashboard (BFF) route as a browser on our own origin would, carrying `cookie` if given. */
async function bff(
  path: string,
  options: { method?: string; cookie?: string; body?: unknown; origin?: string | null } = {},
) {
  const headers: Record<string, string> = { "x-forwarded-for": randomIp() };
  const origin = options.origin === undefined ? appUrl() : options.origin;
  if (origin) headers.origin = origin;
  if (options.cookie) headers.cookie = options.cookie;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${appUrl()}/bff${path}`, {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { status: response.status, text, body: text ? JSON.parse(text) : {}, setCookie };
}

const cookieOf = (setCookie: string) => setCookie.split(";")[0] ?? "";

describe("the dashboard's backend-for-frontend", () => {
  it("sign-up shows the credentials once and keeps the session key in an HttpOnly cookie only", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    expect(signUp.status).toBe(201);
    expect(signUp.body.api_key).toMatch(/^vpsk_/);
    expect(signUp.body.login_token).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    expect(signUp.setCookie).toMatch(/^vps_session=/);
    expect(signUp.setCookie).toMatch(/HttpOnly/i);
    expect(signUp.setCookie).toMatch(/SameSite=Lax/i);
    expect(signUp.setCookie).toMatch(/Path=\//i);
    expect(signUp.setCookie).toMatch(/Max-Age=\d+/i);
    // The cookie is sealed: no key inside it is readable.
    expect(signUp.setCookie).not.toContain("vpsk_");
    const account = await bff("/account", { cookie: cookieOf(signUp.setCookie) });
    expect(account.status).toBe(200);
    expect(account.body.balance_usd).toBe(0);
    expect(account.text).not.toContain("vpsk_");
  });

  it("refuses state-changing requests from another origin, or without one", async () => {
    const foreign = await bff("/sign-up", { method: "POST", origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe("cross_origin");
    expect(foreign.setCookie).toBe("");
    const anonymous = await bff("/sign-up", { method: "POST", origin: null });
    expect(anonymous.status).toBe(403);
  });

  it("sign-out revokes the session at the API: a copied cookie stops working", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    const cookie = cookieOf(signUp.setCookie);
    const out = await bff("/sign-out", { method: "POST", cookie });
    expect(out.status).toBe(200);
    const replayed = await bff("/account", { cookie });
    expect(replayed.status).toBe(401);
    expect(replayed.body.error).toBe("signed_out");
  });

  it("sign-in with the login token; a wrong token is refused; no cookie means signed out", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    const signIn = await bff("/sign-in", { method: "POST", body: { login_token: signUp.body.login_token } });
    expect(signIn.status).toBe(200);
    expect(signIn.text).not.toContain("vpsk_");
    expect((await bff("/account", { cookie: cookieOf(signIn.setCookie) })).status).toBe(200);
    const wrong = await bff("/sign-in", { method: "POST", body: { login_token: "AAAA-BBBB-CCCC-DDDD" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_login");
    expect(wrong.setCookie).toBe("");
    expect((await bff("/account")).status).toBe(401);
  });
});
