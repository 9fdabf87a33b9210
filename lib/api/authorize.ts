import "server-only";
import type { AuthContext } from "@/lib/accounts/auth";
import { checkKeyConditions, heldScopes, mayTouchServer, missingScope } from "@/lib/accounts/key-rights";
import { API_KEY_SCOPES } from "@/lib/db/types";
import { notFound } from "./errors";
import { type DeclaredOperation, declaredOperation } from "./openapi/operations";
import { ANY_KEY } from "./scopes";

/** What one call of an operation is made with, beyond the key: where it comes from, which server it acts on. */
export type OperationCall = {
  /** The client's address, as the service derives it (lib/rate-limit/limits.ts `clientIp`). */
  address: string;
  /** The server the call acts on, for an operation on one server. */
  serverId?: number;
};

/**
 * Whether the authenticated key may make this call of the operation `operationId` declares: still within
 * its expiry, from an address its networks allow, holding the operation's scope, and, for an operation on one
 * server, allowed that server (another is 404, as if it did not exist). Throws the error to answer with.
 * Every route runs it before its handler (lib/api/route.ts `authedRoute`); another front door over the same
 * keys calls it with the operation it is about to perform. Lists of servers are narrowed by the read itself
 * (lib/servers/reads.ts), since no single id is named.
 */
export function authorizeOperation(auth: AuthContext, operationId: string, call: OperationCall): void {
  authorizeDeclared(auth, declaredOperation(operationId), call);
}

export function authorizeDeclared(
  auth: AuthContext,
  operation: DeclaredOperation,
  call: OperationCall,
): void {
  const { rights } = auth;
  checkKeyConditions(rights, call.address);
  const { scope } = operation;
  if (scope === null) throw new Error(`${operation.id} takes no key: it has nothing to authorize`);
  if (scope !== ANY_KEY && rights.scopes !== null && !rights.scopes.has(scope)) {
    throw missingScope([scope], heldScopes(rights, API_KEY_SCOPES));
  }
  if (call.serverId !== undefined && !mayTouchServer(rights, call.serverId)) {
    throw notFound(`No server with id ${call.serverId}.`);
  }
}
