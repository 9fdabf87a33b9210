/** The resize operations, spread into the document's paths (under the Servers tag). */

import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  ResizeListSchema,
  ResizeQuoteSchema,
  ResizeSchema,
  ResizeServerBody,
} from "@/lib/api/schemas/resize";
import { InsufficientBalanceSchema } from "@/lib/api/schemas/servers";
import { hostOperationConflict, serverIdParam, serverNotFound } from "./servers";
import {
  authed,
  bodyErrors,
  errorResponse,
  hostOperationLimited,
  idempotencyHeader,
  jsonContent,
  jsonRequest,
} from "./shared";

export const resizePaths: ZodOpenApiPathsObject = {
  "/servers/{id}/resize": {
    post: authed("billing:spend", {
      tags: ["Servers"],
      operationId: "resizeServer",
      summary: "Move a server to a larger or smaller plan (or quote it)",
      description:
        "CPU and memory move to `plan` both ways; the disk keeps its size unless `grow_disk` is `true`, which grows " +
        "it to the plan's for good (plans with less disk are closed from then on: every answer says whether a later " +
        "downgrade stays possible, `downgrade_possible`, and the cheapest plan still open, `smallest_plan_after`). " +
        "The price is the difference of the two plans' prices for the paid time left, per second: " +
        "`(new price - old price) x seconds_left / period_seconds`. An upgrade is charged from the balance now " +
        "(rounded up to the cent; 402 with the exact deficit when short), a downgrade credited once the machine runs " +
        "on its new size (rounded down). `expires_at` does not move; renewals cost the new plan's price " +
        "(`renewal_price_usd`). The host's room is checked first (409 `out_of_capacity` naming what does not fit; " +
        "nothing is charged).\n\n" +
        "`dry_run: true` answers 200 with a quote and changes nothing; sending its `quote_id` back within 10 minutes " +
        "resizes at the quoted price. Otherwise 202 with the resize, `pending`: a job shuts the machine down (after " +
        "a snapshot of its disk at rest when it grows; the snapshot counts as one of the server's), gives it the new " +
        "size (the guest's cloud-init grows its filesystem at boot) and starts it; it is `done` once SSH answers, " +
        "with the downtime measured (`downtime_seconds`; follow it at GET /servers/{id}/resizes). A failure after " +
        "the job's retries puts the old size back (the disk from the snapshot) and refunds the charge. A stopped " +
        "machine is changed and left stopped. Accepts an Idempotency-Key: a retry resizes once.",
      requestParams: { path: serverIdParam, header: idempotencyHeader },
      requestBody: jsonRequest(ResizeServerBody),
      responses: {
        "200": { description: "The quote (`dry_run: true`).", content: jsonContent(ResizeQuoteSchema) },
        "202": {
          description: "The resize, `pending`; the server shows its new plan and size at once.",
          content: jsonContent(ResizeSchema),
        },
        "400": bodyErrors(
          "Bad body, or a `quote_id` this service did not give for this server.",
          ResizeServerBody,
          ["invalid_idempotency_key"],
        ),
        "402": {
          description:
            "An upgrade the balance does not cover: `insufficient_balance` with its price, the balance and the " +
            "deficit in USD. Nothing changed.",
          content: jsonContent(InsufficientBalanceSchema),
        },
        "404": serverNotFound,
        "409": hostOperationConflict(
          "`server_not_active`: only an active server is resized; `server_in_rescue`: leave rescue mode first; " +
            "`already_on_plan`; `disk_cannot_grow`: `grow_disk` with a plan whose disk is not larger; " +
            "`disk_too_large`: the server's disk is larger than the plan's and never shrinks; `out_of_capacity`: " +
            "its host has no room for the new size (the message names what is missing) or for the snapshot; " +
            "`snapshot_limit_reached`: growing the disk takes a snapshot first and the server keeps as many as it " +
            "may; `quote_expired`: the quote is older than 10 minutes, or the server's plan or expiry changed " +
            "since; `quote_mismatch`: the quote is for another plan or `grow_disk`; `idempotency_key_in_use`: the " +
            "key's first request is still running. Nothing is charged.",
          [
            "server_not_active",
            "server_in_rescue",
            "already_on_plan",
            "disk_cannot_grow",
            "disk_too_large",
            "out_of_capacity",
            "snapshot_limit_reached",
            "quote_expired",
            "quote_mismatch",
            "idempotency_key_in_use",
          ],
        ),
        "422": errorResponse("The Idempotency-Key was used with a different body.", [
          "idempotency_key_reused",
        ]),
        "429": hostOperationLimited,
      },
    }),
  },
  "/servers/{id}/resizes": {
    get: authed("servers:read", {
      tags: ["Servers"],
      operationId: "listResizes",
      summary: "A server's resizes, with their measured downtime",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "The resizes, newest first.", content: jsonContent(ResizeListSchema) },
        "404": serverNotFound,
      },
    }),
  },
};
