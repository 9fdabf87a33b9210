import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { signOut } from "@/lib/session-keys/service";

/** Sign-out: revokes the session key this request carries. */
export const DELETE = authedRoute(async ({ auth }) => json(await signOut(auth)));

export const { GET, POST, PUT, PATCH } = methodNotAllowed(["DELETE"]);
