import { queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import type { Account } from "./types";

export const accountQuery = () =>
  queryOptions({
    queryKey: ["account"],
    queryFn: () => bffFetch<Account>("/bff/account"),
  });
