import "server-only";
import { z } from "zod";
import { envSlice } from "@/lib/config/slice";

export const TOPUP_SETTINGS = envSlice({
  name: "topups",
  shape: {
    TOPUP_EXPIRY_MINUTES: z.coerce.number().int().min(5).max(1440).default(30),
  },
  derive: (values) => ({
    /** How long a deposit top-up's quote holds: its rate is locked until then. */
    expiryMinutes: values.TOPUP_EXPIRY_MINUTES,
  }),
});

export const topupSettings = () => TOPUP_SETTINGS.read();
