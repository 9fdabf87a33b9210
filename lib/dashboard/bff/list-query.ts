import "server-only";

/**
 * The paging parameters of a dashboard list request, passed on to the API as they came: the API checks them
 * and answers a bad one with its own 400 (a limit that is not a number reaches it as "NaN").
 */
export function listQuery(request: Request): { limit?: number; cursor?: string } {
  const query = new URL(request.url).searchParams;
  const limit = query.get("limit");
  const cursor = query.get("cursor");
  return {
    ...(limit === null ? {} : { limit: Number(limit) }),
    ...(cursor === null ? {} : { cursor }),
  };
}
