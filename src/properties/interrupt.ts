// Ctrl-C, SIGTERM and a closed terminal while a check holds a temporary tree
// or a changed working tree. The handler only stops the running command; the
// check itself notices at its next step, cleans up on its normal path (so a
// cleanup never races a step still writing files), then exits as the signal
// would have.
import { constants } from 'node:os';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export class Interrupted extends Error {
  constructor(readonly sig: NodeJS.Signals) {
    super(`interrupted by ${sig}`);
  }
}

export interface Guard {
  /** Aborted on the first signal: running commands listen to it. */
  signal: AbortSignal;
  /** Throws Interrupted once a signal came: call between steps. */
  check(): void;
  /** Removes the handlers; after a signal, exits with 128 + its number. */
  release(): void;
}

export function guardSignals(say: (line: string) => void): Guard {
  const abort = new AbortController();
  let caught: NodeJS.Signals | null = null;
  const handler = (sig: NodeJS.Signals) => {
    if (caught) return; // a second Ctrl-C must not cut the cleanup short
    caught = sig;
    say(`interrupted by ${sig}: stopping and cleaning up`);
    abort.abort();
  };
  for (const s of SIGNALS) process.on(s, handler);
  return {
    signal: abort.signal,
    check: () => {
      if (caught) throw new Interrupted(caught);
    },
    release: () => {
      for (const s of SIGNALS) process.removeListener(s, handler);
      if (caught) process.exit(128 + (constants.signals[caught] ?? 1));
    },
  };
}
