import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { type ApiClient, apiClient } from "@/lib/dashboard/api-client/client";
import { clientIp } from "@/lib/rate-limit/limits";
import { dashboardSession } from "./session";

/**
 * For signed-in pages (server components): the API client of the session, or a redirect to sign-in when
 * there is no session. Pages call the API over HTTP like the BFF does, at the configured API origin.
 */
export async function signedInApi(): Promise<ApiClient> {
  const session = await dashboardSession();
  if (!session.apiKey) redirect("/signin");
  // The API itself is reached at the configured origin; only the browser's address travels on, signed.
  return apiClient({ apiKey: session.apiKey, clientAddress: clientIp(await headers()) });
}

/**
 * The data of a signed-in page's API call: a redirect to sign-in when the key was refused (the session
 * ended), an error for the page's error boundary when the API failed otherwise.
 */
export function pageData<T>(result: { data?: T; response: Response }): T {
  if (result.response.status === 401) redirect("/signin");
  if (result.data === undefined) {
    const { pathname } = new URL(result.response.url || "http://api/");
    throw new Error(`the API answered ${result.response.status} to ${pathname}`);
  }
  return result.data;
}
