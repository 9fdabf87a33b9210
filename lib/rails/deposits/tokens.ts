import type { z } from "zod";
import type { FamilyId } from "../family";
import { COINS } from "../registry";

/**
 * A family's tokens as its configuration reads them: each token's contract comes from its own variable
 * (checked by `variable`), else the token's contract in the registry.
 */
export function tokenSettings<V extends z.ZodType>(family: FamilyId, variable: V) {
  const tokens = COINS.flatMap((coin) =>
    coin.method === "deposit" && coin.family === family && "token" in coin
      ? [{ code: coin.code, ...coin.token }]
      : [],
  );
  return {
    /** One variable per token. */
    shape: Object.fromEntries(tokens.map((token) => [token.setting, variable])) as Record<string, V>,
    /** Each token's contract by coin code. */
    contracts: (values: Record<string, unknown>): Record<string, string> =>
      Object.fromEntries(
        tokens.map((token) => [token.code, (values[token.setting] as string | undefined) ?? token.contract]),
      ),
  };
}
