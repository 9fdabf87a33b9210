import { signOut } from "@/lib/accounts/sessions";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";

/** Sign-out: revokes the session key this request carries. */
export const DELETE = authedRoute("signOut", async ({ auth }) => json(await signOut(auth)));

export const { GET, POST, PUT, PATCH } = methodNotAllowed(["DELETE"]);
