import { parseJsonBody } from "@/lib/api/body";
import { notFound } from "@/lib/api/errors";
import { hostViews, setDrained } from "@/lib/operator/hosts";
import { json, type OperatorContext, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";
import { DrainBody, wireHost } from "@/lib/operator/schemas";

async function drain(context: OperatorContext, drained: boolean) {
  const name = String(context.params.name ?? "");
  const body = await parseJsonBody(context.request, DrainBody);
  await setDrained(context.operator, name, drained, body.reason);
  const host = (await hostViews()).find((view) => view.name === name);
  if (!host) throw notFound(`No host named ${name}.`);
  return json(wireHost(host));
}

export const POST = operatorRoute("drain_host", (context) => drain(context, true));
export const DELETE = operatorRoute("drain_host", (context) => drain(context, false));

export const { GET, PUT, PATCH } = operatorMethodNotAllowed(["POST", "DELETE"]);
