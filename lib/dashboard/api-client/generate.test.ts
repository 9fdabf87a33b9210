import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { renderApiTypes } from "./generate";

it("the committed API client types match the OpenAPI document (run `npm run api:types`)", async () => {
  const committed = readFileSync(path.join(import.meta.dirname, "schema.d.ts"), "utf8");
  expect(committed).toBe(await renderApiTypes());
}, 30_000);
