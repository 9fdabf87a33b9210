import { z } from "zod";
import { timestamp } from "./common";

export const AccountSchema = z
  .object({
    user_id: z.int().meta({ example: 1042 }),
    balance_usd: z.number().meta({ description: "Prepaid balance in USD.", example: 37.5 }),
    currency: z.literal("USD").meta({ description: "Currency of the balance." }),
    servers: z.int().meta({ description: "Servers on the account that are not terminated." }),
    totp_enabled: z.boolean(),
    created_at: timestamp(),
    suspension: z
      .object({
        reason: z.string().meta({ description: "Why, in the operator's words." }),
        since: timestamp(),
      })
      .nullable()
      .meta({
        description:
          "Set while the operator has suspended the whole account (for abuse): its servers are suspended with " +
          "`status_reason` saying so and no new server can be ordered (`403 account_suspended`); top-ups and " +
          "everything else still work. Null otherwise.",
      }),
  })
  .meta({ id: "Account" });

export const AccountCreatedSchema = AccountSchema.extend({
  api_key: z.string().meta({
    description: "The first API key (Bearer credential). Shown only in this response.",
    example: "vpsk_3kTq9ZbW...",
  }),
  login_token: z.string().meta({
    description: "Dashboard sign-in token: four groups of four characters. Shown only in this response.",
    example: "7KQF-9XMA-2PDZ-T4WB",
  }),
}).meta({
  id: "AccountCreated",
  description: "The new account with both of its credentials. Store them now: neither can be shown again.",
});

export type Account = z.infer<typeof AccountSchema>;
export type AccountCreated = z.infer<typeof AccountCreatedSchema>;
