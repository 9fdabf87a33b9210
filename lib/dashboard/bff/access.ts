import { z } from "zod";
import type { ErrorCode } from "@/lib/api/error-codes";
import type { ApiOperation } from "@/lib/dashboard/api-client/client";

/** A request header a forwarded call passes on, checked before it leaves (else a 400 `code`). */
type HeaderCheck = { schema: z.ZodType<string>; code: ErrorCode; message: string };

/** How the catch-all /bff route passes an operation on: the API checks the body and answers with its codes. */
export type Forwarding = {
  /** The path under /bff when it is not the API's; `{id}`, `{snapshotId}` and `{deliveryId}` are numeric, `{ref}` a top-up ref, `{address}` an IP address. */
  as?: string;
  /** Passes the list's `limit` and `cursor` on. */
  list?: boolean;
  /** Query parameters passed on as they came (the API checks them). */
  query?: readonly string[];
  /** Request headers passed on besides Idempotency-Key. */
  headers?: Record<string, HeaderCheck>;
};

/** How the dashboard's browser reaches one API operation, if at all. */
export type Access =
  | { forward: Forwarding }
  /** /bff routes of their own call it, because they add something (the cookie, a password kept back). */
  | { routes: readonly string[] }
  /** The browser never reaches it through /bff, for the reason given. */
  | { closed: string };

const FORWARD: Access = { forward: {} };
const forwarded = (forward: Forwarding): Access => ({ forward });
const ownRoutes = (...routes: string[]): Access => ({ routes });
const closed = (why: string): Access => ({ closed: why });

/** base64 of the x402 payload, as the wallet path sends it back; the API checks what it says. */
const PAYMENT_HEADER: HeaderCheck = {
  schema: z
    .string()
    .max(8192)
    .regex(/^[A-Za-z0-9+/=]+$/),
  code: "invalid_payment",
  message: "X-PAYMENT is not a base64 payment.",
};

/**
 * Every operation of the API, and whether and how the dashboard's browser reaches it: the one place that
 * says so. Keyed by the generated API types, so a forwarded operation the API does not have is a type error,
 * and a new operation does not compile until it is given its line here (run `npm run api:types` after adding
 * it). `forward` entries are all /bff passes on without a handler of its own: nothing else reaches the API.
 * Within one /bff path, the order of the methods is the order of the `Allow` header of its 405.
 */
export const DASHBOARD_ACCESS = {
  "GET /account": FORWARD,
  "POST /account": ownRoutes("app/bff/sign-up/route.ts"),
  "POST /sessions": ownRoutes("app/bff/sign-in/route.ts", "app/bff/sign-up/route.ts"),
  "GET /sessions": FORWARD,
  "DELETE /sessions/{id}": FORWARD,
  "DELETE /sessions/current": ownRoutes("app/bff/sign-out/route.ts"),
  "POST /account/login-token": ownRoutes("app/bff/account/login-token/route.ts"),
  "POST /account/totp": forwarded({ as: "/totp" }),
  "POST /account/totp/confirm": forwarded({ as: "/totp/confirm" }),
  "POST /account/totp/disable": forwarded({ as: "/totp/disable" }),
  "GET /account/recovery-codes": forwarded({ as: "/recovery-codes" }),
  "POST /account/recovery-codes": forwarded({ as: "/recovery-codes" }),
  "GET /keys": FORWARD,
  "POST /keys": FORWARD,
  "DELETE /keys/{id}": FORWARD,
  "GET /keys/current": closed("the dashboard's session key holds every right; keys ask it for themselves"),
  "GET /servers": forwarded({ list: true }),
  "POST /servers": ownRoutes("app/bff/servers/route.ts"),
  "GET /servers/{id}": FORWARD,
  "PATCH /servers/{id}": FORWARD,
  "DELETE /servers/{id}": FORWARD,
  "GET /servers/{id}/credentials": FORWARD,
  "POST /servers/{id}/actions": FORWARD,
  "POST /servers/{id}/renew": FORWARD,
  "POST /servers/{id}/password": FORWARD,
  "POST /servers/{id}/reinstall": ownRoutes("app/bff/servers/[id]/reinstall/route.ts"),
  "POST /servers/{id}/resize": FORWARD,
  "GET /servers/{id}/resizes": FORWARD,
  "GET /servers/{id}/snapshots": FORWARD,
  "POST /servers/{id}/snapshots": FORWARD,
  "GET /servers/{id}/snapshots/schedule": closed("the snapshot list carries the schedule"),
  "PUT /servers/{id}/snapshots/schedule": FORWARD,
  "DELETE /servers/{id}/snapshots/schedule": FORWARD,
  "GET /servers/{id}/snapshots/{snapshotId}": closed("the list carries every snapshot's state"),
  "DELETE /servers/{id}/snapshots/{snapshotId}": FORWARD,
  "POST /servers/{id}/snapshots/{snapshotId}/restore": FORWARD,
  "POST /servers/{id}/rescue": ownRoutes("app/bff/servers/[id]/rescue/route.ts"),
  "DELETE /servers/{id}/rescue": FORWARD,
  "GET /servers/{id}/metrics": forwarded({ query: ["period"] }),
  "POST /servers/{id}/console": FORWARD,
  "DELETE /servers/{id}/console": FORWARD,
  "GET /servers/{id}/console/socket": closed("the browser opens the WebSocket itself, with a console ticket"),
  "GET /servers/{id}/expiry-warnings": FORWARD,
  "GET /servers/{id}/firewall": FORWARD,
  "PUT /servers/{id}/firewall": FORWARD,
  "POST /servers/{id}/firewall/simulate": FORWARD,
  "GET /servers/{id}/rdns": FORWARD,
  "GET /servers/{id}/rdns/{address}": closed("the list carries every named address"),
  "PUT /servers/{id}/rdns/{address}": FORWARD,
  "DELETE /servers/{id}/rdns/{address}": FORWARD,
  "GET /webhooks": FORWARD,
  "POST /webhooks": FORWARD,
  "GET /webhooks/{id}": closed("the list carries every endpoint"),
  "PATCH /webhooks/{id}": FORWARD,
  "DELETE /webhooks/{id}": FORWARD,
  "POST /webhooks/{id}/test": FORWARD,
  "POST /webhooks/{id}/rotate-secret": FORWARD,
  "GET /webhooks/{id}/deliveries": forwarded({ list: true }),
  "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver": FORWARD,
  "GET /topups": forwarded({ list: true }),
  "POST /topups": forwarded({ headers: { "x-payment": PAYMENT_HEADER } }),
  "GET /topups/{ref}": FORWARD,
  "POST /topups/{ref}/cancel": FORWARD,
  "POST /demo/topups/{ref}/pay": forwarded({ as: "/topups/{ref}/demo-pay" }),
  "POST /demo/clock": closed("the test clock answers only this machine"),
  "GET /catalog": ownRoutes("app/bff/servers/[id]/reinstall/route.ts"),
  "GET /health": closed("for monitors and load balancers"),
  "GET /openapi.json": closed("the published contract, which /docs/api renders"),
  "GET /status": closed("public; the /status page reads the same document on the server"),
} satisfies Record<ApiOperation, Access>;
