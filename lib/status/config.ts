import "server-only";
import { z } from "zod";
import { envSlice } from "@/lib/config/slice";

/** The public status page (`/status` and `GET /api/v1/status`). */
export type StatusSettings = {
  /** Off: the page and its JSON answer 404, and no link names them. */
  enabled: boolean;
  /** The figures are computed at most once per this long and served from memory meanwhile. */
  refreshSeconds: number;
};

export const STATUS_SETTINGS = envSlice({
  name: "status",
  shape: {
    STATUS_PAGE: z.enum(["0", "1"]).default("1"),
    STATUS_REFRESH_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  },
  derive: (values): StatusSettings => ({
    enabled: values.STATUS_PAGE === "1",
    refreshSeconds: values.STATUS_REFRESH_SECONDS,
  }),
});

export const statusSettings = () => STATUS_SETTINGS.read();
