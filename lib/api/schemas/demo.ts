import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";

/** The test clock's step: whole seconds, at most 400 days at a time. */
export const AdvanceClockRequestSchema = z.strictObject({
  advance_seconds: z
    .int()
    .min(1)
    .max(400 * 86_400),
});

export const AdvanceClockBody = requestBody(AdvanceClockRequestSchema, {
  advance_seconds: "invalid_advance",
});
