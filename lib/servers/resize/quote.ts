import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * A resize quote is its own record: the terms it was priced on, signed with a key only the service holds, and
 * given back with the resize that takes it up. Nothing is stored for it, and a forged or altered quote is
 * refused like an unknown one. Times are milliseconds since the epoch.
 */
export type QuoteTerms = {
  serverId: number;
  accountId: number;
  toPlan: string;
  growDisk: boolean;
  /** What the server was when quoted: a quote stops holding once either changed (another resize, a renewal). */
  fromPlan: string;
  expiresAt: number;
  amountCents: number;
  toPriceCents: number;
  pricedAt: number;
  secondsLeft: number;
  periodSeconds: number;
  validUntil: number;
};

/** How long a quote's price holds. */
export const QUOTE_VALID_MS = 10 * 60_000;

const PREFIX = "rq1.";
const FIELDS: (keyof QuoteTerms)[] = [
  "serverId",
  "accountId",
  "toPlan",
  "growDisk",
  "fromPlan",
  "expiresAt",
  "amountCents",
  "toPriceCents",
  "pricedAt",
  "secondsLeft",
  "periodSeconds",
  "validUntil",
];

const mac = (key: Buffer, payload: string) => createHmac("sha256", key).update(payload).digest();

export function signQuote(key: Buffer, terms: QuoteTerms): string {
  const payload = Buffer.from(JSON.stringify(FIELDS.map((field) => terms[field]))).toString("base64url");
  return `${PREFIX}${payload}.${mac(key, payload).toString("base64url")}`;
}

/** The terms of a quote this service signed, or undefined for anything else (malformed, altered, foreign). */
export function readQuote(key: Buffer, quoteId: string): QuoteTerms | undefined {
  if (!quoteId.startsWith(PREFIX)) return undefined;
  const [payload, signature, ...rest] = quoteId.slice(PREFIX.length).split(".");
  if (!payload || !signature || rest.length > 0) return undefined;
  const expected = mac(key, payload);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (!Array.isArray(values) || values.length !== FIELDS.length) return undefined;
  return Object.fromEntries(FIELDS.map((field, i) => [field, values[i]])) as QuoteTerms;
}
