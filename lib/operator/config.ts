import "server-only";
import { z } from "zod";
import { envSlice } from "@/lib/config/slice";

/** The operator's console: how long a signed-in operator session lasts, and how much money one may move. */
export type OperatorSettings = {
  /** A session with no request for this long ends. */
  sessionIdleMinutes: number;
  /** A session ends this long after sign-in, however busy. */
  sessionHours: number;
  /**
   * What one operator's adjustments may move in 24 hours, credits and debits alike, in cents; past it an
   * adjustment waits for another admin's approval.
   */
  adjustmentDailyCapCents: number;
};

export const OPERATOR_SETTINGS = envSlice({
  name: "operator",
  shape: {
    OPERATOR_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
    OPERATOR_SESSION_HOURS: z.coerce.number().int().min(1).max(168).default(12),
    // Whole US dollars; 0: every adjustment waits for a second admin.
    OPERATOR_ADJUSTMENT_DAILY_CAP_USD: z.coerce.number().int().min(0).max(10_000_000).default(1000),
  },
  derive: (values): OperatorSettings => ({
    sessionIdleMinutes: values.OPERATOR_SESSION_IDLE_MINUTES,
    sessionHours: values.OPERATOR_SESSION_HOURS,
    adjustmentDailyCapCents: values.OPERATOR_ADJUSTMENT_DAILY_CAP_USD * 100,
  }),
});

/** The process's operator console settings. */
export const operatorSettings = () => OPERATOR_SETTINGS.read();
