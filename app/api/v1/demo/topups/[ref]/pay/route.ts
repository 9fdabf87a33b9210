import { parseJsonBody } from "@/lib/api/body";
import { ApiError } from "@/lib/api/errors";
import { authedRoute, errorResponse, json, methodNotAllowed } from "@/lib/api/route";
import { SimulatePaymentBody } from "@/lib/api/schemas/topups";
import { config } from "@/lib/config/env";
import { simulateDemoPayment } from "@/lib/topups/deposit";

const pay = authedRoute("simulateTopupPayment", async ({ request, auth, params }) => {
  const body = await parseJsonBody(request, SimulatePaymentBody);
  return json(await simulateDemoPayment(auth.accountId, String(params.ref), body.amount));
});

/**
 * Demo mode only: simulate a payment to a classic-coin top-up. Outside demo mode this path does not
 * exist (404 before authentication, so it cannot even be probed).
 */
export const POST: typeof pay = (request, route) =>
  config().mode === "demo"
    ? pay(request, route)
    : Promise.resolve(errorResponse(new ApiError(404, "not_found", "No such endpoint.")));

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
