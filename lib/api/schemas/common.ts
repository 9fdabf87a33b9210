import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";

export const ErrorSchema = z
  .object({
    error: z.string().meta({ description: "Machine-readable error code.", example: "unauthorized" }),
    message: z.string().meta({ description: "Human-readable explanation." }),
  })
  .meta({ id: "Error", description: "Every error: a code and a message; some codes add fields." });

export const timestamp = () => z.iso.datetime().meta({ example: "2026-11-22T10:00:00.000Z" });

/** A request body that must be empty or `{}`. */
export const EmptyBodySchema = z.strictObject({});
export const EmptyBody = requestBody(EmptyBodySchema);

/** The largest page a list answers. */
export const MAX_PAGE_LIMIT = 100;

/** The query parameters of a paginated list, for the OpenAPI document. */
export const pageQuerySchema = (defaultLimit: number) =>
  z.object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAGE_LIMIT)
      .optional()
      .meta({ description: `Items per page, 1 to ${MAX_PAGE_LIMIT}.`, default: defaultLimit }),
    cursor: z.string().optional().meta({
      description: "`next_cursor` of the previous page, unchanged; omit it for the first (newest) page.",
    }),
  });

/** The paging fields of a list answer. */
export const nextCursorField = () =>
  z.string().nullable().meta({
    description: "Pass as `cursor` to get the next (older) page; `null` when this page is the last.",
  });
