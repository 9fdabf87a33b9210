import "server-only";
import { z } from "zod";
import { envSlice } from "@/lib/config/slice";

/** The operator's console: how long a signed-in operator session lasts. */
export type OperatorSettings = {
  /** A session with no request for this long ends. */
  sessionIdleMinutes: number;
  /** A session ends this long after sign-in, however busy. */
  sessionHours: number;
};

export const OPERATOR_SETTINGS = envSlice({
  name: "operator",
  shape: {
    OPERATOR_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
    OPERATOR_SESSION_HOURS: z.coerce.number().int().min(1).max(168).default(12),
  },
  derive: (values): OperatorSettings => ({
    sessionIdleMinutes: values.OPERATOR_SESSION_IDLE_MINUTES,
    sessionHours: values.OPERATOR_SESSION_HOURS,
  }),
});

/** The process's operator console settings. */
export const operatorSettings = () => OPERATOR_SETTINGS.read();
