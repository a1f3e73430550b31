// File locks: the guard's private folder (its configuration, the channel,
// the report and the report's folder) is the run's judge: production code
// may change nothing in it, through any name. Nor may it write outside the
// run's folders (its temporary root and its tree), as under the Python
// guard: a linked dependency or a sealed runtime it rewrote would load in a
// later process as an installed package's code. A path is judged by where it
// really leads (a link, `/proc/self/fd/N`, a relative path), and a rename or
// removal of the report's folder counts like one of the report.
import fs from 'node:fs';
import { type CallJudge, guarded, never } from './locks.js';
import { leadsInto, leadsOutside, opensForWrite, resolved } from './paths.js';
import { refuse } from './record.js';
import { actor, patchOnStack, unowned } from './stack.js';

/**
 * The judge of a call whose first `n` arguments are paths, and `flagsAt` its
 * open flags: refused when one leads into the guard's folder (`runDir`) and
 * production code (or no one) asks. A write stream opens its file a tick
 * after it is made, when no caller is left on the stack: `streamOpen` lets
 * one such open of the report through for each report stream the runner
 * made.
 */
export function writesInto(runDir: string, streamOpen: (p: unknown) => boolean) {
  return (n: number, flagsAt?: number): CallJudge =>
    (args, who) => {
      if (flagsAt !== undefined && !opensForWrite(args[flagsAt])) return false;
      for (let i = 0; i < n; i++)
        if (leadsInto(args[i], runDir)) {
          const a = who();
          if (flagsAt !== undefined && a.kind === 'none' && streamOpen(args[i])) return false;
          return unowned(a);
        }
      return false;
    };
}

/**
 * A judge that also refuses, with an event of its own, production code's
 * write to a path outside `roots`; `written` are the indexes of the
 * arguments it writes (a copy's source is only read), `flagsAt` its open flags.
 */
function orOutside(
  judge: CallJudge,
  roots: readonly string[],
  name: string,
  written: number[],
  flagsAt?: number,
): CallJudge {
  if (!roots.length) return judge;
  return (args, who) => {
    if (judge(args, who)) return true;
    if (flagsAt !== undefined && !opensForWrite(args[flagsAt])) return false;
    for (const i of written) {
      const to = leadsOutside(args[i], roots);
      const a = to === null ? null : patchOnStack();
      if (a?.kind === 'patch') refuse(`${name} outside the run's temporary root`, `${name}(${to})`, a);
    }
    return false;
  };
}

/** Each guarded file operation: how many arguments are paths, which of them it writes, where its open flags are. */
const FILE_OPS: Record<string, { n: number; written: number[]; flagsAt?: number }> = {
  writeFile: { n: 1, written: [0] },
  appendFile: { n: 1, written: [0] },
  truncate: { n: 1, written: [0] },
  rm: { n: 1, written: [0] },
  rmdir: { n: 1, written: [0] },
  mkdir: { n: 1, written: [0] },
  unlink: { n: 1, written: [0] },
  copyFile: { n: 2, written: [1] },
  cp: { n: 2, written: [1] },
  rename: { n: 2, written: [0, 1] },
  link: { n: 2, written: [1] },
  symlink: { n: 2, written: [1] },
  open: { n: 1, written: [0], flagsAt: 1 },
  utimes: { n: 1, written: [0] },
  chmod: { n: 1, written: [0] },
};

/** `roots`: the folders the run may write (its temporary root, the tree); none given, writes elsewhere are not judged. */
export function guardFiles(runDir: string, report: string, roots: readonly string[] = []): void {
  const isReport = (p: unknown) => resolved(p) === report;
  let streams = 0;
  const writesRun = writesInto(runDir, (p) => {
    if (streams === 0 || !isReport(p)) return false;
    streams--;
    return true;
  });
  // Every write stream, the runner's too (it holds fs.createWriteStream from
  // before the guard), is made by fs.WriteStream, which is swapped here.
  const RealWriteStream = fs.WriteStream as unknown as new (file: unknown, options: unknown) => fs.WriteStream;
  const streamOutside = orOutside(never, roots, 'fs.WriteStream', [0]);
  class WriteStream extends RealWriteStream {
    constructor(file: unknown, options: unknown) {
      if (isReport(file)) {
        const a = actor();
        if (unowned(a)) refuse('fs.WriteStream on the test report', `WriteStream(${String(file)})`, a);
        streams++;
      } else streamOutside([file], actor);
      super(file, options);
    }
  }
  (fs as { WriteStream: unknown }).WriteStream = WriteStream;
  for (const [op, { n, written, flagsAt }] of Object.entries(FILE_OPS)) {
    const judge = writesRun(n, flagsAt);
    for (const name of [op, `${op}Sync`])
      guarded(fs, name, `fs.${name} on the test report`, orOutside(judge, roots, `fs.${name}`, written, flagsAt));
    guarded(
      fs.promises,
      op,
      `fs.promises.${op} on the test report`,
      orOutside(judge, roots, `fs.promises.${op}`, written, flagsAt),
    );
  }
}
