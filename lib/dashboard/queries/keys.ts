import { queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import { queryKeys } from "./query-keys";
import type { Schemas } from "./types";

export const keysQuery = () =>
  queryOptions({
    queryKey: queryKeys.apiKeys(),
    queryFn: () => bffFetch<Schemas["ApiKeyList"]>("/bff/keys"),
  });
