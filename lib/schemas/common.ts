import { z } from "zod";

export const ErrorSchema = z
  .object({
    error: z.string().meta({ description: "Machine-readable error code.", example: "unauthorized" }),
    message: z.string().meta({ description: "Human-readable explanation." }),
  })
  .meta({ id: "Error", description: "Every error: a code and a message; some codes add fields." });

export const timestamp = () => z.iso.datetime().meta({ example: "2026-11-22T10:00:00.000Z" });

/** A request body that must be empty or `{}`. */
export const EmptyBodySchema = z.strictObject({});
