import type { z } from "zod";
import { config } from "@/lib/config/env";
import { ApiError, badRequest } from "./errors";
import type { FieldRule, RequestBody } from "./request-body";
import { validationMessage } from "./validation-messages";

// The unread rest of the body is still on the wire, so the connection cannot carry another request.
const tooLarge = (limit: number) =>
  new ApiError(
    413,
    "payload_too_large",
    `The request body exceeds the limit of ${limit} bytes.`,
    {},
    {
      Connection: "close",
    },
  );

/**
 * The client closed its connection before the body was complete. Nothing of ours failed: it is neither
 * logged nor counted as an outage (the socket error it arrives as would otherwise read as one).
 */
const clientAborted = () =>
  new ApiError(
    400,
    "request_aborted",
    "The request body was not received in full.",
    {},
    { Connection: "close" },
  );

/** Reads the raw body, refusing more than `limit` bytes whether or not Content-Length was sent (413). */
export async function readLimited(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw clientAborted();
    });
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function describePath(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join(".") : "body";
}

/**
 * Turns the first validation issue into a specific 400: unknown fields, then the field's own code, its
 * message from VALIDATION_MESSAGES unless the rule gives the field's own words.
 */
function issueToError(issue: z.core.$ZodIssue, fields: Record<string, FieldRule | undefined>): ApiError {
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.join(", ");
    return badRequest("unknown_field", `Unknown field${issue.keys.length > 1 ? "s" : ""}: ${keys}.`);
  }
  const rule = fields[String(issue.path[0] ?? "")];
  if (typeof rule === "object" && "message" in rule) return badRequest(rule.code, rule.message);
  const code =
    typeof rule === "object" ? (rule.byIssue[issue.code] ?? rule.code) : (rule ?? "invalid_request");
  return badRequest(code, validationMessage(code) ?? `${describePath(issue.path)}: ${issue.message}`);
}

/**
 * Parses a JSON request body against its declaration (strict schema and field codes). An empty body counts
 * as `{}`. Errors: 413 too large, 415 not JSON, 400 `invalid_json`, `invalid_body` (not an object),
 * `unknown_field`, or the field's own code.
 */
export async function parseJsonBody<T>(
  request: Request,
  body: RequestBody<T>,
  options: { maxBytes?: number } = {},
): Promise<T> {
  const contentType = request.headers.get("content-type");
  const text = await readLimited(request, options.maxBytes ?? config().maxBodyBytes);
  let value: unknown = {};
  if (text.trim() !== "") {
    if (contentType && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
      throw new ApiError(
        415,
        "unsupported_media_type",
        "Send the body as JSON with Content-Type: application/json.",
      );
    }
    try {
      value = JSON.parse(text);
    } catch {
      throw badRequest("invalid_json", "The request body is not valid JSON.");
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("invalid_body", "The request body must be a JSON object.");
  }
  const parsed = body.schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const first = issues.find((issue) => issue.code === "unrecognized_keys") ?? issues[0];
    throw first ? issueToError(first, body.fields) : badRequest("invalid_request", "Invalid body.");
  }
  return parsed.data;
}
