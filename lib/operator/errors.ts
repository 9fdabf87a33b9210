import type { ErrorCode, OperatorErrorCode } from "@/lib/api/error-codes";
import { ApiError } from "@/lib/api/errors";

/**
 * A refusal of the operator's API: answered in the API's error shape by the same response code, with a code
 * of the operator's own registry (OPERATOR_ERROR_CODES), never seen by customers.
 */
export class OperatorError extends ApiError {
  constructor(
    status: number,
    code: OperatorErrorCode,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    // ApiError carries the code as a string on the wire; the registries keep the two sets apart.
    super(status, code as unknown as ErrorCode, message, extra, headers);
    this.name = "OperatorError";
  }
}

/** The same answer as for a path that does not exist: who is not an operator learns nothing more. */
export const noSuchEndpoint = (request: Request) =>
  new ApiError(404, "not_found", `No such endpoint: ${request.method} ${new URL(request.url).pathname}.`);
