/**
 * State that must exist once per process. Next may load a module once per route bundle and once more for
 * instrumentation, so module-level variables can be duplicated; `globalThis` is shared by all of them.
 */
export function processWide<T>(name: string, create: () => T): T {
  const key = Symbol.for(`vps.${name}`);
  const holder = globalThis as typeof globalThis & Record<symbol, T | undefined>;
  holder[key] ??= create();
  return holder[key] as T;
}
