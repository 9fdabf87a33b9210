import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseJsonBody } from "./body";
import { ApiError } from "./errors";
import { fieldCodesOf, requestBody } from "./request-body";
import { VALIDATION_MESSAGES } from "./validation-messages";

const schema = z.strictObject({ plan: z.string().min(1), count: z.int().min(1).optional() });
const planBody = requestBody(schema, { plan: "invalid_plan" });
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
  const options = { maxBytes: 1024 };

  it("parses a valid body", async () => {
    await expect(parseJsonBody(request('{"plan":"pup","count":2}'), planBody, options)).resolves.toEqual({
      plan: "pup",
      count: 2,
    });
  });

  it("treats an empty body as {}", async () => {
    const empty = requestBody(z.strictObject({ name: z.string().optional() }));
    await expect(parseJsonBody(request(undefined, {}), empty, options)).resolves.toEqual({});
  });

  it("maps a field's failure to its own code, with a message that says what to send", async () => {
    const error = await failure(parseJsonBody(request('{"plan":5}'), planBody, options));
    expect([error.status, error.code]).toEqual([400, "invalid_plan"]);
    expect(error.message).toBe(VALIDATION_MESSAGES.invalid_plan);
    expect(error.message).toMatch(/^Choose plan from the catalog: pup, /);
    expect(error.message).not.toMatch(/expected/i);
  });

  it("uses a route's own words for a field when it gives them", async () => {
    const own = requestBody(schema, { plan: { code: "invalid_plan", message: "Send plan as a word." } });
    const error = await failure(parseJsonBody(request('{"plan":5}'), own));
    expect([error.code, error.message]).toEqual(["invalid_plan", "Send plan as a word."]);
  });

  it("chooses a field's code by what failed, with its fallback for anything else", async () => {
    const amount = requestBody(z.strictObject({ amount: z.number().min(25).max(2000) }), {
      amount: {
        code: "invalid_amount",
        byIssue: { too_small: "amount_too_low", too_big: "amount_too_high" },
      },
    });
    const codeFor = async (text: string) => (await failure(parseJsonBody(request(text), amount))).code;
    expect(await codeFor('{"amount":1}')).toBe("amount_too_low");
    expect(await codeFor('{"amount":5000}')).toBe("amount_too_high");
    expect(await codeFor('{"amount":"50"}')).toBe("invalid_amount");
    const error = await failure(parseJsonBody(request('{"amount":1}'), amount));
    expect(error.message).toBe(VALIDATION_MESSAGES.amount_too_low);
    // The codes the OpenAPI entry lists come from the same declaration, each once.
    expect(fieldCodesOf(amount)).toEqual(["amount_too_low", "amount_too_high", "invalid_amount"]);
  });

  it("reports unknown fields before anything else", async () => {
    const error = await failure(parseJsonBody(request('{"plan":5,"extra":1}'), planBody, options));
    expect([error.status, error.code, error.message]).toEqual([
      400,
      "unknown_field",
      "Unknown field: extra.",
    ]);
  });

  it("uses invalid_request for fields without a code", async () => {
    const error = await failure(parseJsonBody(request('{"plan":"pup","count":0}'), planBody, options));
    expect(error.code).toBe("invalid_request");
  });

  it.each([
    ["{", 400, "invalid_json"],
    ["[]", 400, "invalid_body"],
    ["null", 400, "invalid_body"],
    ["x".repeat(2000), 413, "payload_too_large"],
  ])("refuses %s", async (text, status, code) => {
    const error = await failure(parseJsonBody(request(text), planBody, options));
    expect([error.status, error.code]).toEqual([status, code]);
  });

  it("refuses a declared Content-Length over the limit before reading", async () => {
    const error = await failure(
      parseJsonBody(
        request("{}", { "content-type": "application/json", "content-length": "5000" }),
        planBody,
        options,
      ),
    );
    expect(error.status).toBe(413);
  });

  it("refuses a body that is not JSON by content type with 415", async () => {
    const error = await failure(
      parseJsonBody(request("plan=pup", { "content-type": "text/plain" }), planBody, options),
    );
    expect([error.status, error.code]).toEqual([415, "unsupported_media_type"]);
  });
});
