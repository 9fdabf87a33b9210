import { parseJsonBody } from "@/lib/api/body";
import { noSuchEndpoint } from "@/lib/operator/errors";
import { reviewPayment } from "@/lib/operator/payments";
import { json, operatorMethodNotAllowed, operatorPathId, operatorRoute } from "@/lib/operator/route";
import { ReviewBody } from "@/lib/operator/schemas";

export const POST = operatorRoute("review_payment", async (context) => {
  const kind = context.params.kind;
  if (kind !== "deposit" && kind !== "x402") throw noSuchEndpoint(context.request);
  const id = operatorPathId(context);
  const body = await parseJsonBody(context.request, ReviewBody);
  return json(await reviewPayment(context.operator, `${kind}:${id}`, body.note));
});

export const { GET, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["POST"]);
