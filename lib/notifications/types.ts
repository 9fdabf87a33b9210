/**
 * The events an account can be notified of, and the words the dashboard and ntfy use for them. Pure: the
 * browser imports it too. Each event's payload schema is in lib/api/schemas/notifications.ts; the list of
 * types is the database's (lib/db/types.ts), which stores them.
 */
import { EVENT_TYPES, type EventType } from "@/lib/db/types";

/** The event a test send delivers: to the endpoint it was asked for only, never subscribed to. */
export const TEST_EVENT_TYPE = "webhook.test";

export const isEventType = (value: string): value is EventType =>
  (EVENT_TYPES as readonly string[]).includes(value);

/** One line per event type, for the dashboard's picker and the documentation. */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  "topup.payment_seen": "A payment to a top-up's address was seen (not yet confirmed).",
  "topup.credited": "A top-up credited the balance: in part, completely, or late.",
  "server.active": "A server is ready: built, reinstalled, restored, brought back or resumed.",
  "server.build_failed": "A server could not be built; its charge was refunded.",
  "server.expiring": "A server's period ends soon and it will not renew by itself.",
  "server.suspended": "A server's period ended unpaid: it was stopped.",
  "server.held": "The operator suspended a server (or the whole account): it was stopped, and says why.",
  "server.released": "The operator lifted a server's suspension.",
  "server.terminated": "A server was terminated.",
  "account.balance_low": "The balance does not cover the renewals due in the next 7 days.",
  "snapshot.taken": "A snapshot was taken.",
  "snapshot.restored": "A server was restored from a snapshot.",
  "snapshot.failed": "A snapshot or a restore failed.",
  "rescue.entered": "A server booted its rescue system.",
  "rescue.left": "A server left rescue mode.",
  "console.opened": "A server's console was opened.",
  "traffic.threshold_reached": "A server used 80 % or 100 % of its monthly traffic.",
};

/**
 * What the owner of a server the operator holds may still do, and what is refused until the hold is lifted
 * (`server.held` carries both, the dashboard and the API's refusals say the same).
 */
export const HELD_OWNER_MAY = ["view", "renew", "set_auto_renew", "top_up"] as const;
export const HELD_OWNER_MAY_NOT = [
  "power",
  "console",
  "reinstall",
  "restore",
  "rescue",
  "take_snapshot",
  "delete_snapshot",
  "terminate",
] as const;

/** The longest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2048;
