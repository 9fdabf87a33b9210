import "server-only";
import { z } from "zod";
import { envSlice } from "@/lib/config/slice";

export const ACCOUNT_SETTINGS = envSlice({
  name: "accounts",
  shape: {
    MAX_SESSIONS_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(20),
  },
  derive: (values) => ({
    /** Live dashboard sessions an account may hold; a sign-in past it revokes the oldest. */
    maxSessionsPerAccount: values.MAX_SESSIONS_PER_ACCOUNT,
  }),
});

export const accountSettings = () => ACCOUNT_SETTINGS.read();
