import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks writes them. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

/**
 * The three Standard Webhooks headers of one attempt: the event's id (the same on every attempt), the time of
 * this attempt (the wall clock: receivers refuse timestamps more than five minutes off theirs) and one `v1`
 * signature per secret, space-separated, so that a receiver with either secret accepts it during a rotation.
 */
export function signatureHeaders(
  eventId: string,
  payload: string,
  secrets: string[],
  at: Date,
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload)).join(" "),
  };
}
