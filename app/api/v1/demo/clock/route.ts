import { z } from "zod";
import { parseJsonBody } from "@/lib/api/body";
import { notFound } from "@/lib/api/errors";
import { json, methodNotAllowed, publicRoute } from "@/lib/api/route";
import { advanceClock, now } from "@/lib/clock";
import { config } from "@/lib/config/env";

const AdvanceSchema = z.strictObject({
  advance_seconds: z
    .int()
    .min(1)
    .max(400 * 86_400),
});

/** Test clock (demo mode with ENABLE_TEST_CLOCK=1 only): moves business time forward. Otherwise 404. */
const enabled = () => config().mode === "demo" && config().testClock;

export const GET = publicRoute(async () => {
  if (!enabled()) throw notFound("No such endpoint.");
  return json({ now: now().toISOString() });
});

export const POST = publicRoute(async ({ request }) => {
  if (!enabled()) throw notFound("No such endpoint.");
  const body = await parseJsonBody(request, AdvanceSchema, {
    fieldCodes: { advance_seconds: "invalid_advance" },
  });
  return json({ now: advanceClock(body.advance_seconds).toISOString() });
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
