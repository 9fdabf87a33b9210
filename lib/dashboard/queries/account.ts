import { queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import { queryKeys } from "./query-keys";
import type { Account } from "./types";

export const accountQuery = () =>
  queryOptions({
    queryKey: queryKeys.account(),
    queryFn: () => bffFetch<Account>("/bff/account"),
  });
