import { overview } from "@/lib/operator/overview";
import { json, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";

export const GET = operatorRoute("read", async () => json(await overview()));

export const { POST, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["GET"]);
