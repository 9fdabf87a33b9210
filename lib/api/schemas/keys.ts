import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { API_KEY_SCOPES, SPEND_CAP_PERIODS } from "@/lib/db/types";
import { usdToCents } from "@/lib/util/cents";
import { readNetwork } from "@/lib/util/networks";
import { timestamp } from "./common";
import { recoveryCodeField } from "./sessions";

export const MAX_ACTIVE_KEYS = 20;
/** Networks and servers a key may be limited to, at most. */
export const MAX_KEY_NETWORKS = 32;
export const MAX_KEY_SERVERS = 100;
/** The largest spend cap, in USD. */
export const MAX_SPEND_CAP_USD = 100_000;

const scopeField = () =>
  z.enum(API_KEY_SCOPES).meta({ description: "A key scope (see the Keys guide).", example: "servers:read" });

const periodField = () =>
  z.enum(SPEND_CAP_PERIODS).meta({
    description:
      "When the cap starts afresh: `day` (00:00 UTC), `week` (Monday 00:00 UTC), `month` (the first, 00:00 UTC) " +
      "or `total` (never).",
    example: "month",
  });

export const SpendCapSchema = z
  .object({
    amount_usd: z
      .number()
      .meta({ description: "At most this much may be debited per period, in USD.", example: 50 }),
    period: periodField(),
    spent_usd: z.number().meta({
      description:
        "Debited so far this period by the key and by the keys it made (orders, renewals, paid changes).",
      example: 12.5,
    }),
    resets_at: timestamp().nullable().meta({ description: "When the next period begins; null for `total`." }),
  })
  .meta({ id: "SpendCap", description: "A key's spend cap and what is spent of it." });

export const ApiKeySchema = z
  .object({
    id: z.int().meta({ description: "Key id, used to revoke it.", example: 7 }),
    name: z.string().nullable().meta({ description: "Label given at creation, or null.", example: "ci" }),
    prefix: z
      .string()
      .meta({ description: "First characters of the key, to tell keys apart.", example: "vpsk_3kTq9ZbW" }),
    created_at: timestamp(),
    last_used_at: timestamp()
      .nullable()
      .meta({ description: "Last successful use, to the minute; null if never used." }),
    last_used_from: z.string().nullable().meta({
      description: "The client address of that use (as the service sees it behind its proxies).",
      example: "203.0.113.7",
    }),
    scopes: z.array(scopeField()).meta({
      description: "The scopes the key holds, including those others brought along.",
      example: ["servers:read", "servers:power"],
    }),
    full_access: z.boolean().meta({
      description:
        "The key holds every scope, including any added later (keys made without `scopes` by a key that had " +
        "them all, and every key made before scopes existed).",
    }),
    expires_at: timestamp().nullable().meta({ description: "When the key stops working; null: never." }),
    allowed_networks: z
      .array(z.string())
      .nullable()
      .meta({ description: "CIDRs the key may be used from; null: anywhere.", example: ["203.0.113.0/24"] }),
    server_ids: z
      .array(z.int())
      .nullable()
      .meta({
        description: "The only servers the key may see or touch (others are 404 to it); null: every server.",
        example: [12, 15],
      }),
    spend_cap: SpendCapSchema.nullable().meta({ description: "Its spend cap; null: none of its own." }),
    created_by_key_id: z
      .int()
      .nullable()
      .meta({
        description:
          "The key that made this one, whose rights bound it and whose cap counts its spending; null when made by " +
          "the account (a dashboard session or account creation).",
      }),
  })
  .meta({ id: "ApiKey", description: "An API key as listed: its prefix only, never the key." });

export const ApiKeyCreatedSchema = ApiKeySchema.extend({
  api_key: z.string().meta({ description: "The full key. Shown only in this response." }),
  scopes_added: z.array(scopeField()).meta({
    description: "Scopes the key holds because a scope asked for needs them (they are in `scopes` too).",
    example: ["servers:read"],
  }),
}).meta({ id: "ApiKeyCreated" });

export const ApiKeyListSchema = z
  .object({ keys: z.array(ApiKeySchema).meta({ description: "Active keys, oldest first." }) })
  .meta({ id: "ApiKeyList" });

export const CurrentKeySchema = ApiKeySchema.extend({
  kind: z.enum(["api", "session"]).meta({ description: "`session`: a dashboard sign-in's key." }),
  spendable_usd: z
    .number()
    .nullable()
    .meta({
      description:
        "The most this key may still debit now under its own cap and those of the keys above it; null when " +
        "none of them has a cap (the balance still bounds it). 0 for a key without `billing:spend`.",
      example: 37.5,
    }),
}).meta({
  id: "CurrentKey",
  description: "The key the request was made with: what it may do, its conditions and cap, and its last use.",
});

/** At most two decimals, within the cap's bounds: a cap is money. */
const capAmount = z
  .number()
  .min(0)
  .max(MAX_SPEND_CAP_USD)
  .refine((usd) => usdToCents(usd) !== undefined, "whole cents only");

export const CreateKeyRequestSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[\p{L}\p{N} ._:@()-]+$/u, "use letters, digits, spaces and . _ : @ ( ) -")
      .optional()
      .meta({ description: "Optional label, 1 to 64 characters.", example: "ci" }),
    scopes: z
      .array(scopeField())
      .min(1)
      .max(API_KEY_SCOPES.length)
      .optional()
      .meta({
        description:
          "What the key may do; each scope's needs are added (see `scopes_added`). Omitted: the scopes of the " +
          "key making the request (every scope for a dashboard session or a key that holds them all).",
        example: ["servers:read", "servers:power"],
      }),
    expires_at: z.iso.datetime({ offset: true }).optional().meta({
      description:
        "When the key stops working, in the future. Omitted: never, or the expiry of the key making the request.",
      example: "2027-03-01T00:00:00Z",
    }),
    allowed_networks: z
      .array(z.string().max(64))
      .min(1)
      .max(MAX_KEY_NETWORKS)
      .superRefine((list, context) => {
        for (const [index, text] of list.entries()) {
          const reading = readNetwork(text);
          if ("problem" in reading)
            context.addIssue({ code: "custom", path: [index], message: reading.problem });
        }
      })
      .optional()
      .meta({
        description:
          `Up to ${MAX_KEY_NETWORKS} IPv4 or IPv6 CIDRs (or single addresses) the key may be used from. Omitted: ` +
          "anywhere, or the networks of the key making the request.",
        example: ["203.0.113.0/24", "2001:db8:5::/48"],
      }),
    server_ids: z
      .array(z.int().min(1))
      .min(1)
      .max(MAX_KEY_SERVERS)
      .optional()
      .meta({
        description:
          "The only servers of the account the key may see or touch. Omitted: every server, or those of the key " +
          "making the request. A server the key orders joins its list.",
        example: [12],
      }),
    spend_cap: z
      .strictObject({
        amount_usd: capAmount.meta({ description: "USD per period, whole cents.", example: 50 }),
        period: periodField(),
      })
      .optional()
      .meta({
        description:
          "At most this much may be debited by the key (and the keys it makes) per period. Omitted: no cap, or " +
          "what is left of the cap of the key making the request, for good (`total`).",
      }),
    totp_code: z
      .string()
      .max(16)
      .optional()
      .meta({
        description:
          "A current code: required when the request is made with a dashboard session key and two-factor sign-in " +
          "is on (or send `recovery_code`). Not asked of API keys.",
        example: "492039",
      }),
    recovery_code: recoveryCodeField,
  })
  .meta({ id: "CreateKeyRequest" });

export const CreateKeyBody = requestBody(CreateKeyRequestSchema, {
  name: "invalid_name",
  scopes: "invalid_scopes",
  expires_at: "invalid_expires_at",
  allowed_networks: "invalid_networks",
  server_ids: "invalid_server_ids",
  spend_cap: "invalid_spend_cap",
  totp_code: "invalid_totp_code",
  recovery_code: "invalid_recovery_code",
});

export const RevokedKeySchema = z
  .object({
    id: z.int(),
    revoked: z.literal(true),
    revoked_at: timestamp(),
    also_revoked: z.array(z.int()).meta({
      description: "Ids of the keys this one had made (at any depth), revoked with it.",
      example: [],
    }),
  })
  .meta({ id: "RevokedKey" });

/** The body of a refusal for the key's scopes or conditions (`missing_scope`, `address_not_allowed`). */
export const KeyRefusalSchema = z
  .object({
    error: z.enum(["missing_scope", "address_not_allowed"]),
    message: z.string(),
    required_scopes: z
      .array(scopeField())
      .optional()
      .meta({ description: "`missing_scope`: the scopes the operation needs." }),
    key_scopes: z
      .array(scopeField())
      .optional()
      .meta({ description: "`missing_scope`: the scopes the key holds." }),
    address: z
      .string()
      .optional()
      .meta({ description: "`address_not_allowed`: the client address as the service saw it." }),
  })
  .meta({ id: "KeyRefusal" });

/** What a key asked to make would have more of than the key making it. */
export const KEY_RIGHT_FIELDS = [
  "scopes",
  "expires_at",
  "allowed_networks",
  "server_ids",
  "spend_cap",
] as const;

/** The body of a 403 `beyond_key_rights` on key creation: the field that asks for too much. */
export const BeyondKeyRightsSchema = z
  .object({
    error: z.literal("beyond_key_rights"),
    message: z.string(),
    field: z
      .enum(KEY_RIGHT_FIELDS)
      .meta({ description: "What asks for more than the key making the request has." }),
  })
  .meta({ id: "BeyondKeyRights" });

/** The body of a 402 `spend_cap_exceeded`. */
export const SpendCapExceededSchema = z
  .object({
    error: z.literal("spend_cap_exceeded"),
    message: z.string(),
    cap: z.number().meta({ description: "The cap that would be passed, USD per period.", example: 13 }),
    period: periodField(),
    spent: z.number().meta({ description: "USD debited so far this period under that cap.", example: 13 }),
    price: z.number().meta({ description: "USD this request would have debited.", example: 6.5 }),
    resets_at: timestamp()
      .nullable()
      .meta({ description: "When the cap's next period begins; null: never." }),
    cap_key_id: z.int().meta({
      description: "The key whose cap it is: the key used, or a key above it (the one that made it, ...).",
    }),
  })
  .meta({ id: "SpendCapExceeded" });

export type ApiKey = z.infer<typeof ApiKeySchema>;
export type ApiKeyCreated = z.infer<typeof ApiKeyCreatedSchema>;
export type CurrentKey = z.infer<typeof CurrentKeySchema>;
export type CreateKeyRequest = z.infer<typeof CreateKeyRequestSchema>;
export type RevokedKey = z.infer<typeof RevokedKeySchema>;
