/**
 * Values kept under a version: a value is served only while the caller's current version is the one it
 * was loaded under and, where it names one, before the moment it goes stale. Full, it drops the entry
 * loaded longest ago (a Map iterates in insertion order, and a refreshed entry is re-inserted at the end).
 */
/** A counter, or a text that changes with the data (a list of row revisions, say). */
type Version = number | string;

export function createVersionedCache(maxEntries: number) {
  const entries = new Map<string, { version: Version; staleAt: number; value: unknown }>();
  return {
    get<T>(key: string, version: Version, at = Number.NEGATIVE_INFINITY): { value: T } | undefined {
      const entry = entries.get(key);
      return entry && entry.version === version && at < entry.staleAt
        ? { value: entry.value as T }
        : undefined;
    },
    set(key: string, version: Version, value: unknown, staleAt = Number.POSITIVE_INFINITY): void {
      entries.delete(key);
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, { version, staleAt, value });
    },
  };
}
