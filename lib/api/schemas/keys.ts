import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { timestamp } from "./common";
import { recoveryCodeField } from "./sessions";

export const MAX_ACTIVE_KEYS = 20;

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
  })
  .meta({ id: "ApiKey", description: "An API key as listed: its prefix only, never the key." });

export const ApiKeyCreatedSchema = ApiKeySchema.extend({
  api_key: z.string().meta({ description: "The full key. Shown only in this response." }),
}).meta({ id: "ApiKeyCreated" });

export const ApiKeyListSchema = z
  .object({ keys: z.array(ApiKeySchema).meta({ description: "Active keys, oldest first." }) })
  .meta({ id: "ApiKeyList" });

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
  totp_code: "invalid_totp_code",
  recovery_code: "invalid_recovery_code",
});

export const RevokedKeySchema = z
  .object({ id: z.int(), revoked: z.literal(true), revoked_at: timestamp() })
  .meta({ id: "RevokedKey" });

export type ApiKey = z.infer<typeof ApiKeySchema>;
export type ApiKeyCreated = z.infer<typeof ApiKeyCreatedSchema>;
export type CreateKeyRequest = z.infer<typeof CreateKeyRequestSchema>;
export type RevokedKey = z.infer<typeof RevokedKeySchema>;
