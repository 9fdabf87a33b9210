import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type FieldCodes, parseJsonBody } from "./body";
import { ApiError } from "./errors";
import { VALIDATION_MESSAGES } from "./validation-messages";

const schema = z.strictObject({ plan: z.string().min(1), count: z.int().min(1).optional() });
const request = (
  body: string | undefined,
  headers: Record<string, string> = { "content-type": "application/json" },
) => new Request("http://localhost/x", { method: "POST", body, headers });

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe("parseJsonBody", () => {
  const options = { maxBytes: 1024, fieldCodes: { plan: "invalid_plan" } } satisfies {
    maxBytes: number;
    fieldCodes: FieldCodes;
  };

  it("parses a valid body", async () => {
    await expect(parseJsonBody(request('{"plan":"pup","count":2}'), schema, options)).resolves.toEqual({
      plan: "pup",
      count: 2,
    });
  });

  it("treats an empty body as {}", async () => {
    const empty = z.strictObject({ name: z.string().optional() });
    await expect(parseJsonBody(request(undefined, {}), empty, options)).resolves.toEqual({});
  });

  it("maps a field's failure to its own code, with a message that says what to send", async () => {
    const error = await failure(parseJsonBody(request('{"plan":5}'), schema, options));
    expect([error.status, error.code]).toEqual([400, "invalid_plan"]);
    expect(error.message).toBe(VALIDATION_MESSAGES.invalid_plan);
    expect(error.message).toMatch(/^Choose plan from the catalog: pup, /);
    expect(error.message).not.toMatch(/expected/i);
  });

  it("uses a route's own words for a field when it gives them", async () => {
    const own = {
      fieldCodes: { plan: { code: "invalid_plan", message: "Send plan as a word." } } satisfies FieldCodes,
    };
    const error = await failure(parseJsonBody(request('{"plan":5}'), schema, own));
    expect([error.code, error.message]).toEqual(["invalid_plan", "Send plan as a word."]);
  });

  it("reports unknown fields before anything else", async () => {
    const error = await failure(parseJsonBody(request('{"plan":5,"extra":1}'), schema, options));
    expect([error.status, error.code, error.message]).toEqual([
      400,
      "unknown_field",
      "Unknown field: extra.",
    ]);
  });

  it("uses invalid_request for fields without a code", async () => {
    const error = await failure(parseJsonBody(request('{"plan":"pup","count":0}'), schema, options));
    expect(error.code).toBe("invalid_request");
  });

  it.each([
    ["{", 400, "invalid_json"],
    ["[]", 400, "invalid_body"],
    ["null", 400, "invalid_body"],
    ["x".repeat(2000), 413, "payload_too_large"],
  ])("refuses %s", async (body, status, code) => {
    const error = await failure(parseJsonBody(request(body), schema, options));
    expect([error.status, error.code]).toEqual([status, code]);
  });

  it("refuses a declared Content-Length over the limit before reading", async () => {
    const error = await failure(
      parseJsonBody(
        request("{}", { "content-type": "application/json", "content-length": "5000" }),
        schema,
        options,
      ),
    );
    expect(error.status).toBe(413);
  });

  it("refuses a body that is not JSON by content type with 415", async () => {
    const error = await failure(
      parseJsonBody(request("plan=pup", { "content-type": "text/plain" }), schema, options),
    );
    expect([error.status, error.code]).toEqual([415, "unsupported_media_type"]);
  });
});
