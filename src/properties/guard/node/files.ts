// File locks: the guard's private folder (its configuration, the channel,
// the report and the report's folder) is the run's judge: production code
// may change nothing in it, through any name. A path is judged by where it
// really leads (a link, `/proc/self/fd/N`, a relative path), and a rename or
// removal of the report's folder counts like one of the report.
import fs from 'node:fs';
import { type CallJudge, guarded } from './locks.js';
import { leadsInto, opensForWrite, resolved } from './paths.js';
import { refuse } from './record.js';
import { actor, unowned } from './stack.js';

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

export function guardFiles(runDir: string, report: string): void {
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
  class WriteStream extends RealWriteStream {
    constructor(file: unknown, options: unknown) {
      if (isReport(file)) {
        const a = actor();
        if (unowned(a)) refuse('fs.WriteStream on the test report', `WriteStream(${String(file)})`, a);
        streams++;
      }
      super(file, options);
    }
  }
  (fs as { WriteStream: unknown }).WriteStream = WriteStream;
  const fileOps: Record<string, CallJudge> = {
    writeFile: writesRun(1),
    appendFile: writesRun(1),
    truncate: writesRun(1),
    rm: writesRun(1),
    rmdir: writesRun(1),
    mkdir: writesRun(1),
    unlink: writesRun(1),
    copyFile: writesRun(2),
    cp: writesRun(2),
    rename: writesRun(2),
    link: writesRun(2),
    symlink: writesRun(2),
    open: writesRun(1, 1),
    utimes: writesRun(1),
    chmod: writesRun(1),
  };
  for (const [op, judge] of Object.entries(fileOps)) {
    for (const name of [op, `${op}Sync`]) guarded(fs, name, `fs.${name} on the test report`, judge);
    guarded(fs.promises, op, `fs.promises.${op} on the test report`, judge);
  }
}
