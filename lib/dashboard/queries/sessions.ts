import { queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import { queryKeys } from "./query-keys";
import type { Schemas } from "./types";

export const sessionsQuery = () =>
  queryOptions({
    queryKey: queryKeys.sessions(),
    queryFn: () => bffFetch<Schemas["SessionList"]>("/bff/sessions"),
  });

export const recoveryCodesQuery = () =>
  queryOptions({
    queryKey: queryKeys.recoveryCodes(),
    queryFn: () => bffFetch<Schemas["RecoveryCodeStatus"]>("/bff/recovery-codes"),
  });
