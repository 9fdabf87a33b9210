import { badRequest } from "@/lib/api/errors";
import { flaggedPayments } from "@/lib/operator/payments";
import { json, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";

export const GET = operatorRoute("read", async ({ request }) => {
  const state = new URL(request.url).searchParams.get("state") ?? "attention";
  if (state !== "attention" && state !== "reviewed") {
    throw badRequest("invalid_request", "Send state as attention or reviewed.");
  }
  return json({ payments: await flaggedPayments(state) });
});

export const { POST, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["GET"]);
