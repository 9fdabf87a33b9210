import { bffRoute, notFound, refParam, relay } from "@/lib/bff-session/bff";

/** One top-up; the API settles what has arrived as it answers, so polling this shows progress. */
export const GET = bffRoute(
  async ({ api, params }) => {
    const ref = refParam(params);
    if (!ref) return notFound("top-up");
    return relay(await api.GET("/topups/{ref}", { params: { path: { ref } } }));
  },
  { signedIn: true },
);
