/**
 * Holds the process's exit until `done` settles: `process.exit` is wrapped so that the first call waits for it
 * (a shutdown handler that exits as soon as HTTP is closed would otherwise cut work still being recorded).
 * Several holds chain: each wraps the exit the previous one left. Returns whether the exit was asked for.
 */
export function holdExitUntil(done: Promise<unknown>): () => boolean {
  const exit = process.exit.bind(process);
  let exiting = false;
  process.exit = ((code?: number) => {
    if (exiting) return exit(code);
    exiting = true;
    done.finally(() => exit(code));
    return undefined as never;
  }) as typeof process.exit;
  return () => exiting;
}
