import { authenticateRequest } from "@/lib/accounts/auth";
import { parseJsonBody } from "@/lib/api/body";
import { notFound } from "@/lib/api/errors";
import { json, methodNotAllowed, publicRoute } from "@/lib/api/route";
import { SimulatePaymentBody } from "@/lib/api/schemas/topups";
import { config } from "@/lib/config/env";
import { simulateDemoPayment } from "@/lib/topups/deposit";

/**
 * Demo mode only: simulate a payment to a classic-coin top-up. Outside demo mode this path does not
 * exist (404 before authentication, so it cannot even be probed).
 */
export const POST = publicRoute(async ({ request, client, params }) => {
  if (config().mode !== "demo") throw notFound("No such endpoint.");
  const auth = await authenticateRequest(request, client);
  const body = await parseJsonBody(request, SimulatePaymentBody);
  return json(await simulateDemoPayment(auth.accountId, String(params.ref), body.amount));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
