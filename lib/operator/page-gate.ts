import "server-only";
import { ApiError } from "@/lib/api/errors";
import { clientAddress, consume, limiters } from "@/lib/rate-limit/limits";
import { operatorSession, operatorTokenFromCookies } from "./sessions";

/**
 * The operator console's pages count against the same per-operator limit as its API
 * (RATE_LIMIT_OPERATOR_REQUESTS): they show the same data, so a stolen session cannot sweep it page by page.
 * The request proxy (proxy.ts) runs before every page but is built apart from the app's server code, so the
 * app's start-up installs this check on a process-wide symbol (as the console's WebSocket gateway is), and the
 * proxy calls it for each /operator page.
 */
export const OPERATOR_PAGE_GATE = Symbol.for("vps.operator.pageGate");

/** What the gate decides: the limit's headers to send, and a refusal when the operator is past it. */
export type PageGateOutcome = { headers: Record<string, string>; refusal?: { status: 429; message: string } };

export type OperatorPageGate = (headers: Headers) => Promise<PageGateOutcome>;

/** Counts one page request of a signed-in operator; anyone else is not counted (the page shows them nothing). */
export const countOperatorPage: OperatorPageGate = async (headers) => {
  const session = await operatorSession(
    operatorTokenFromCookies(headers.get("cookie")),
    clientAddress(headers),
  );
  if (!session) return { headers: {} };
  try {
    return { headers: await consume(limiters().operatorRequests, `operator:${session.operatorId}`) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      return { headers: error.headers, refusal: { status: 429, message: error.message } };
    }
    throw error;
  }
};

export function installOperatorPageGate(): void {
  (globalThis as Record<symbol, unknown>)[OPERATOR_PAGE_GATE] = countOperatorPage;
}
