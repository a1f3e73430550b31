// A side's run started before the steps that judge it ask for it (the revert
// cache's key is made meanwhile): the steps take it once, or it is stopped.
// Either way the check's interrupt reaches it, and a run never taken is
// stopped and awaited, so its temporary tree is gone before the check ends.

export interface EarlyRun<T> {
  /** The started run, once (null after): the taker's `stop` ends it from then on. */
  take(stop: AbortSignal): Promise<T> | null;
  /** Stops the run unless taken, and waits for its end. */
  drop(): Promise<void>;
}

/** Starts `start` at once; `interrupt` (the check's) stops it whoever holds it. */
export function startEarly<T>(interrupt: AbortSignal, start: (stop: AbortSignal) => Promise<T>): EarlyRun<T> {
  const stop = new AbortController();
  const relay = () => stop.abort();
  interrupt.addEventListener('abort', relay, { once: true });
  let run: Promise<T> | null = start(stop.signal);
  run.catch(() => undefined); // awaited by whoever takes it, or by drop
  return {
    take(theirs) {
      const started = run;
      run = null;
      if (started) {
        if (theirs.aborted) stop.abort();
        else theirs.addEventListener('abort', relay, { once: true });
      }
      return started;
    },
    async drop() {
      const started = run;
      run = null;
      if (started) {
        stop.abort();
        await started.catch(() => undefined);
      }
      interrupt.removeEventListener('abort', relay);
    },
  };
}
