import { queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import type { Schemas } from "./types";

export const sessionsQuery = () =>
  queryOptions({
    queryKey: ["sessions"],
    queryFn: () => bffFetch<Schemas["SessionList"]>("/bff/sessions"),
  });
