import { parseJsonBody } from "@/lib/api/body";
import { notFound } from "@/lib/api/errors";
import { json, methodNotAllowed, publicRoute } from "@/lib/api/route";
import { AdvanceClockBody } from "@/lib/api/schemas/demo";
import { config } from "@/lib/config/env";
import { fromLoopback } from "@/lib/http/loopback";
import { advanceClock, now } from "@/lib/util/clock";

/**
 * Test clock (demo mode with ENABLE_TEST_CLOCK=1 only): moves business time forward, which can suspend and
 * terminate every server. It answers only clients connected from this machine (the TCP peer, never a
 * forwarded header); for anyone else it does not exist.
 */
const enabled = (request: Request) =>
  config().mode === "demo" && config().testClock && fromLoopback(request.headers);

export const GET = publicRoute(async ({ request }) => {
  if (!enabled(request)) throw notFound("No such endpoint.");
  return json({ now: now().toISOString() });
});

export const POST = publicRoute(async ({ request }) => {
  if (!enabled(request)) throw notFound("No such endpoint.");
  const body = await parseJsonBody(request, AdvanceClockBody);
  return json({ now: advanceClock(body.advance_seconds).toISOString() });
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
