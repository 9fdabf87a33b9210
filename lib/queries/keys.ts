import { queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import type { Schemas } from "./types";

export const keysQuery = () =>
  queryOptions({
    queryKey: ["keys"],
    queryFn: () => bffFetch<Schemas["ApiKeyList"]>("/bff/keys"),
  });
