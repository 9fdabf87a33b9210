import { MAX_PAGE_LIMIT } from "@/lib/api/schemas/common";
import { badRequest } from "./errors";

export type PageRequest = { limit: number; beforeId: number | undefined };
export type Page<T> = { items: T[]; nextCursor: string | null };

// Opaque to clients: "p1." + the last row's id, base64url. The prefix lets the format change later.
const CURSOR_PREFIX = "p1.";

export function encodeCursor(id: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith(CURSOR_PREFIX)) return undefined;
  const digits = text.slice(CURSOR_PREFIX.length);
  const id = /^[1-9]\d{0,9}$/.test(digits) ? Number(digits) : Number.NaN;
  return Number.isSafeInteger(id) && id <= 2_147_483_647 ? id : undefined;
}

/** Reads `?limit=` (1 to MAX_PAGE_LIMIT) and `?cursor=` (from a previous page's `next_cursor`). */
export function readPageRequest(url: URL, defaultLimit: number): PageRequest {
  const rawLimit = url.searchParams.get("limit");
  let limit = defaultLimit;
  if (rawLimit !== null) {
    limit = /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
      throw badRequest("invalid_limit", `Send limit as a whole number from 1 to ${MAX_PAGE_LIMIT}.`);
    }
  }
  const rawCursor = url.searchParams.get("cursor");
  let beforeId: number | undefined;
  if (rawCursor !== null && rawCursor !== "") {
    beforeId = decodeCursor(rawCursor);
    if (beforeId === undefined) {
      throw badRequest(
        "invalid_cursor",
        "The cursor is not one this API gave: send next_cursor from the previous page unchanged.",
      );
    }
  }
  return { limit, beforeId };
}

/**
 * Cuts rows fetched with `limit + 1` (newest first, by id) into a page: the extra row only says there is more,
 * and the cursor points after the last row shown.
 */
export function toPage<R extends { id: number }, T>(
  rows: R[],
  limit: number,
  present: (row: R) => T,
): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map(present),
    nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null,
  };
}
