import { badRequest } from "@/lib/api/errors";
import { listAudit } from "@/lib/operator/audit";
import { json, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";

export const GET = operatorRoute("read_audit", async ({ request }) => {
  const query = new URL(request.url).searchParams;
  const before = query.get("before");
  if (before !== null && !/^[1-9]\d{0,15}$/.test(before)) {
    throw badRequest("invalid_request", "Send before as next_before of the previous page.");
  }
  const target = query.get("target") ?? undefined;
  const page = await listAudit({ beforeId: before === null ? undefined : Number(before), target });
  return json({ entries: page.entries, next_before: page.nextBefore });
});

export const { POST, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["GET"]);
