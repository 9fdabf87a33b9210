/** A list path for the page after `cursor` (the previous page's `next_cursor`), or the first page. */
export const pagePath = (path: string, cursor: string | null) =>
  cursor ? `${path}?cursor=${encodeURIComponent(cursor)}` : path;
