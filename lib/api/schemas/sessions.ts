import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { timestamp } from "./common";

/** A current code from the authenticator app, where a second factor is asked for. */
const totpCodeField = (description: string) =>
  z.string().max(16).optional().meta({ description, example: "492039" });

/** One of the account's recovery codes, in place of a TOTP code; it is spent. */
export const recoveryCodeField = z
  .string()
  .max(32)
  .optional()
  .meta({
    description:
      "One of the recovery codes shown when two-factor sign-in was turned on, in place of `totp_code` (send one " +
      "of the two). Each works once; case, spaces and hyphens do not matter. Accepted while TOTP codes are " +
      "throttled.",
    example: "4K9Q-XW2M-T7HD",
  });

const RecoveryCodeListSchema = z.array(z.string().meta({ example: "4K9Q-XW2M-T7HD" })).meta({
  description: "Ten recovery codes, each usable once in place of a TOTP code. Shown only here: save them.",
});

export const SignInRequestSchema = z
  .strictObject({
    login_token: z.string().min(1).max(64).meta({
      description: "The login token from account creation; case, spaces and hyphens do not matter.",
      example: "7KQF-9XMA-2PDZ-T4WB",
    }),
    totp_code: totpCodeField("The current 6-digit code, when two-factor sign-in is on."),
    recovery_code: recoveryCodeField,
  })
  .meta({ id: "SignInRequest" });

export const SignInBody = requestBody(SignInRequestSchema, {
  login_token: "invalid_login",
  totp_code: "invalid_totp_code",
  recovery_code: "invalid_recovery_code",
});

export const SessionSchema = z
  .object({
    api_key: z
      .string()
      .meta({ description: "A session key: use it as a Bearer key until it expires or is signed out." }),
    key_id: z.int(),
    expires_at: timestamp(),
  })
  .meta({ id: "Session", description: "A dashboard session. Its key is not listed by GET /keys." });

export const TotpSetupSchema = z
  .object({
    secret: z.string().meta({ description: "Base32 secret, for typing into an authenticator app." }),
    otpauth_uri: z.string().meta({ description: "otpauth://totp/... URI (SHA-1, 6 digits, 30 s)." }),
    qr_data_uri: z.string().meta({ description: "PNG data URI of a QR code of otpauth_uri." }),
  })
  .meta({ id: "TotpSetup" });

export const TotpCodeRequestSchema = z
  .strictObject({
    code: z.string().max(16).meta({ description: "A current 6-digit code.", example: "492039" }),
  })
  .meta({ id: "TotpCodeRequest" });

export const TotpCodeBody = requestBody(TotpCodeRequestSchema, { code: "invalid_totp_code" });

export const TotpStateSchema = z.object({ totp_enabled: z.boolean() }).meta({ id: "TotpState" });

export const TotpEnabledSchema = z
  .object({ totp_enabled: z.literal(true), recovery_codes: RecoveryCodeListSchema })
  .meta({ id: "TotpEnabled" });

export const DisableTotpRequestSchema = z
  .strictObject({
    code: totpCodeField("A current 6-digit code."),
    recovery_code: recoveryCodeField,
  })
  .meta({ id: "DisableTotpRequest", description: "Send `code` or `recovery_code`." });

export const DisableTotpBody = requestBody(DisableTotpRequestSchema, {
  code: "invalid_totp_code",
  recovery_code: "invalid_recovery_code",
});

export const SecondFactorRequestSchema = z
  .strictObject({
    totp_code: totpCodeField("A current 6-digit code."),
    recovery_code: recoveryCodeField,
  })
  .meta({ id: "SecondFactorRequest", description: "Send `totp_code` or `recovery_code`." });

export const SecondFactorBody = requestBody(SecondFactorRequestSchema, {
  totp_code: "invalid_totp_code",
  recovery_code: "invalid_recovery_code",
});

export const RecoveryCodesSchema = z
  .object({ recovery_codes: RecoveryCodeListSchema })
  .meta({ id: "RecoveryCodes" });

export const RecoveryCodeStatusSchema = z
  .object({
    remaining: z
      .int()
      .meta({ description: "Unused recovery codes left (0 with two-factor sign-in off).", example: 9 }),
    created_at: timestamp()
      .nullable()
      .meta({ description: "When the current set was made; null when none is left." }),
  })
  .meta({ id: "RecoveryCodeStatus", description: "How many recovery codes are left, never the codes." });

export const DashboardSessionSchema = z
  .object({
    id: z.int().meta({ description: "The session's id, used to revoke it.", example: 41 }),
    created_at: timestamp().meta({ description: "When the sign-in happened." }),
    last_used_at: timestamp()
      .nullable()
      .meta({ description: "Last successful use, to the minute; null if never used." }),
    expires_at: timestamp(),
    current: z.boolean().meta({ description: "True for the session this request was made with." }),
  })
  .meta({ id: "DashboardSession", description: "A live dashboard session, never its key." });

export const SessionListSchema = z
  .object({ sessions: z.array(DashboardSessionSchema).meta({ description: "Live sessions, newest first." }) })
  .meta({ id: "SessionList" });

export const RevokedSessionSchema = z
  .object({ id: z.int(), revoked: z.literal(true), revoked_at: timestamp() })
  .meta({ id: "RevokedSession" });

export const RotateLoginTokenRequestSchema = z
  .strictObject({
    totp_code: totpCodeField("A current code, required (or `recovery_code`) when two-factor sign-in is on."),
    recovery_code: recoveryCodeField,
    revoke_api_keys: z
      .boolean()
      .optional()
      .meta({
        description:
          "Also revoke the account's API keys (default false). The key making this request is kept; called with " +
          "a session key, every API key is revoked.",
        example: true,
      }),
  })
  .meta({ id: "RotateLoginTokenRequest" });

export const RotateLoginTokenBody = requestBody(RotateLoginTokenRequestSchema, {
  totp_code: "invalid_totp_code",
  recovery_code: "invalid_recovery_code",
});

export const LoginTokenRotatedSchema = z
  .object({
    login_token: z.string().meta({
      description: "The new login token. Shown only in this response.",
      example: "7KQF-9XMA-2PDZ-T4WB",
    }),
    sessions_revoked: z.int().meta({ description: "How many sessions of the old token were revoked." }),
    api_keys_revoked: z
      .int()
      .meta({ description: "How many API keys were revoked (0 unless `revoke_api_keys`)." }),
    session: SessionSchema.optional().meta({
      description:
        "Only when the request was made with a session key (which is revoked too): a new session to go on with.",
    }),
  })
  .meta({ id: "LoginTokenRotated" });

export type DashboardSession = z.infer<typeof DashboardSessionSchema>;
