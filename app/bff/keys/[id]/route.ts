import { bffJson, bffRoute, relay } from "@/lib/session/bff";

export const DELETE = bffRoute(
  async ({ request, api }) => {
    const id = new URL(request.url).pathname.split("/").pop() ?? "";
    if (!/^\d{1,10}$/.test(id)) return bffJson({ error: "not_found", message: "No such key." }, 404);
    return relay(await api.DELETE("/keys/{id}", { params: { path: { id } } }));
  },
  { signedIn: true },
);
