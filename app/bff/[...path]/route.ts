import { bffRoute } from "@/lib/dashboard/bff/bff";
import { forward } from "@/lib/dashboard/bff/forward";

/** Every dashboard call without a handler of its own: passed to the API when FORWARDED lists it, else 404/405. */
const forwarded = bffRoute(forward, { signedIn: true });

export { forwarded as GET, forwarded as POST, forwarded as PUT, forwarded as PATCH, forwarded as DELETE };
