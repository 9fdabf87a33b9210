import type { ZodOpenApiPathsObject } from "zod-openapi";
import { CatalogSchema } from "@/lib/api/schemas/catalog";
import { jsonContent, publicOperation } from "./shared";
export const catalogTag = {
  name: "Catalog",
  description: "Plans, locations, OS images, prices and payment options.",
};

export const catalogPaths: ZodOpenApiPathsObject = {
  "/catalog": {
    get: publicOperation({
      tags: ["Catalog"],
      operationId: "getCatalog",
      summary: "Plans, locations, OS images, prices and payment options",
      description: "Public. `pricing.prices` holds every plan x location price, computed by the rule.",
      responses: { "200": { description: "The catalog.", content: jsonContent(CatalogSchema) } },
    }),
  },
};
