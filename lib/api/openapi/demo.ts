/** The OpenAPI operations of demo mode. */
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { AdvanceClockBody } from "@/lib/api/schemas/demo";
import { SimulatePaymentBody, TopupSchema } from "@/lib/api/schemas/topups";
import {
  authed,
  bodyErrors,
  errorResponse,
  jsonContent,
  jsonRequest,
  publicOperation,
  topupRefParam,
} from "./shared";
export const demoTag = {
  name: "Demo",
  description:
    "Only in demo mode (no production configuration): simulated payments, and a test clock when " +
    "`ENABLE_TEST_CLOCK=1`. Outside demo mode these paths answer 404.",
};

export const demoPaths: ZodOpenApiPathsObject = {
  "/demo/topups/{ref}/pay": {
    post: authed("topups:write", {
      tags: ["Demo"],
      operationId: "simulateTopupPayment",
      summary: "Simulate a payment (demo mode only)",
      description:
        "Pretends `amount` (default: exactly `deposit_amount`) was sent to the top-up's address. The demo watcher " +
        "then adds one confirmation per poll. Only for networks the demo watcher covers.",
      requestParams: { path: topupRefParam },
      requestBody: jsonRequest(SimulatePaymentBody, { required: false }),
      responses: {
        "200": { description: "The top-up with the payment seen.", content: jsonContent(TopupSchema) },
        "400": bodyErrors("Bad amount.", SimulatePaymentBody),
        "404": errorResponse("Not in demo mode, or no such top-up on this account.", ["not_found"]),
        "409": errorResponse("This top-up's network is watched on a real chain.", ["not_simulated"]),
      },
    }),
  },
  "/demo/clock": {
    post: publicOperation({
      tags: ["Demo"],
      operationId: "advanceTestClock",
      summary: "Move the business clock forward (demo mode with ENABLE_TEST_CLOCK=1 only)",
      requestBody: jsonRequest(AdvanceClockBody),
      responses: {
        "200": { description: "The new time.", content: jsonContent(z.object({ now: z.string() })) },
        "400": bodyErrors("Bad body.", AdvanceClockBody),
        "404": errorResponse("The test clock is not enabled.", ["not_found"]),
      },
    }),
  },
};
