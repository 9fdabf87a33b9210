import "server-only";
import { getIronSession, type SessionOptions } from "iron-session";
import { cookies } from "next/headers";
import { SESSION_KEY_TTL_SECONDS } from "@/lib/accounts/session-ttl";
import { config } from "@/lib/config/env";

/** What the encrypted cookie holds: the session key from POST /sessions, never shown to the browser. */
export type DashboardSession = { apiKey?: string; expiresAt?: string };

/** The cookie's lifetime matches the session key's, so neither outlives the other. */
export const DASHBOARD_COOKIE_TTL_SECONDS = SESSION_KEY_TTL_SECONDS;

export function sessionOptions(): SessionOptions {
  const production = config().mode === "production";
  return {
    password: config().sessionPasswords,
    // `__Host-` binds the cookie to this exact origin over HTTPS; demo mode runs on plain http://127.0.0.1.
    cookieName: production ? "__Host-vps_session" : "vps_session",
    ttl: DASHBOARD_COOKIE_TTL_SECONDS,
    cookieOptions: { httpOnly: true, sameSite: "lax", secure: production, path: "/" },
  };
}

export async function dashboardSession() {
  return getIronSession<DashboardSession>(await cookies(), sessionOptions());
}
