import "server-only";
import { cookies, headers } from "next/headers";
import { notFound } from "next/navigation";
import { config } from "@/lib/config/env";
import { clientAddress } from "@/lib/rate-limit/limits";
import { csrfTokenFor } from "./credentials";
import type { OperatorPermission } from "./roles";
import { may } from "./roles";
import { type OperatorSession, operatorCookieName, operatorSession } from "./sessions";

/** The signed-in operator of a page request (the cookie only), or undefined. */
export async function currentOperator(): Promise<OperatorSession | undefined> {
  const token = (await cookies()).get(operatorCookieName())?.value;
  return operatorSession(token, clientAddress(await headers()));
}

/**
 * For the console's pages: the operator and the CSRF token their forms send, or the not-found page for
 * anyone else (a customer's cookie included): the console does not show itself to strangers.
 */
export async function requireOperator(): Promise<{ operator: OperatorSession; csrfToken: string }> {
  const operator = await currentOperator();
  if (!operator) notFound();
  return { operator, csrfToken: csrfTokenFor(config().operatorCsrfKey, operator.token) };
}

export const mayDo = (operator: OperatorSession, permission: OperatorPermission) =>
  may(operator.role, permission);
