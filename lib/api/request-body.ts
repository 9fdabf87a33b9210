import type { z } from "zod";
import type { ErrorCode } from "./error-codes";

/**
 * The 400 code a body field's failures report: one code (`plan` -> `invalid_plan`), a code with this field's
 * own words where the shared message would mislead, or a code chosen by zod's issue (`too_small` ->
 * `amount_too_low`) with a fallback for every other failure.
 */
export type FieldRule =
  | ErrorCode
  | { code: ErrorCode; message: string }
  | { code: ErrorCode; byIssue: Partial<Record<z.core.$ZodIssue["code"], ErrorCode>> };

/**
 * A JSON request body as one declaration: its strict schema and its fields' 400 codes. The route parses with
 * it (`parseJsonBody`) and the OpenAPI entry takes its schema and its codes from it (`bodyErrors`), so the
 * codes a field answers with are written once. A field without a rule reports `invalid_request`.
 */
export type RequestBody<T> = {
  schema: z.ZodType<T>;
  fields: { readonly [K in keyof T]?: FieldRule };
};

export const requestBody = <T>(
  schema: z.ZodType<T>,
  fields: { readonly [K in keyof T]?: FieldRule } = {},
): RequestBody<T> => ({ schema, fields });

/** The codes a rule can report, the issue-specific ones before the fallback. */
const ruleCodes = (rule: FieldRule): ErrorCode[] =>
  typeof rule === "string"
    ? [rule]
    : "byIssue" in rule
      ? [...Object.values(rule.byIssue), rule.code]
      : [rule.code];

/** Every code the body's fields report, in the order the fields are declared, each once. */
export function fieldCodesOf<T>(body: RequestBody<T>): ErrorCode[] {
  const rules: (FieldRule | undefined)[] = Object.values(body.fields);
  return [...new Set(rules.flatMap((rule) => (rule ? ruleCodes(rule) : [])))];
}
