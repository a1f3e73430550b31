// What the runtime guards said about one run, judged. Every guarded
// interpreter opens with a `start` record and ends with a `final` one; a
// `finding` names an event, the file and line of the production code behind
// it; a `failed` record names a test the guard saw fail as its process sent
// the result on. A run passes only with no finding, every started
// interpreter's final record, a channel that ended cleanly, and a report that
// shows every failure the guard saw. A `stop` record says the guard ended
// the run's process group after a finding, so no process of it could send
// its final record. A `failing` record names a case that failed as the run
// went (pytest's plugin), before any report exists: a hint for ending the
// other side of the revert check early, never a result. Pure: lines and
// cases in, problems out.
import type { TestCase } from '../../junit/types.js';

const KINDS = ['start', 'final', 'finding', 'failed', 'failing', 'stop'] as const;

interface GuardRecord {
  t: (typeof KINDS)[number];
  pid: string | number;
  rt?: string;
  event?: string;
  detail?: string;
  file?: string;
  line?: number;
  name?: string;
  /** A module.register hooks thread: it lives as long as its process. */
  hooks?: boolean;
}

function parse(line: string): GuardRecord | null {
  try {
    const r = JSON.parse(line) as GuardRecord;
    return r && typeof r === 'object' && KINDS.includes(r.t) && r.pid !== undefined ? r : null;
  } catch {
    return null;
  }
}

/** Why the guard's records refuse the run (empty: they let it stand). */
export function guardProblems(lines: string[], ended: boolean): string[] {
  const problems: string[] = [];
  const started = new Map<string, string>();
  const hooksThreads = new Set<string>();
  const finished = new Set<string>();
  const seen = new Set<string>();
  let stopped = false;
  for (const line of lines) {
    const r = parse(line);
    if (!r) {
      problems.push(
        `the runtime guard's channel carried a line that is not one of its records (${JSON.stringify(line.slice(0, 120))}): something else wrote to it`,
      );
      continue;
    }
    const pid = String(r.pid);
    if (r.t === 'start') {
      started.set(pid, r.rt ?? 'guarded');
      if (r.hooks === true) hooksThreads.add(pid);
    } else if (r.t === 'final') finished.add(pid);
    else if (r.t === 'failed' || r.t === 'failing') continue;
    else if (r.t === 'stop') stopped = true;
    else {
      const at = r.file ? ` at ${r.file}${r.line ? `:${r.line}` : ''}` : '';
      const text = `runtime guard: ${r.event ?? 'event'}${at}: ${r.detail ?? ''}`;
      if (!seen.has(text)) problems.push(text);
      seen.add(text);
    }
  }
  // A stop counts only beside a finding, which refuses the run anyway.
  const killed = stopped && seen.size > 0;
  for (const [pid, rt] of started) {
    // A hooks thread's process ending cleanly (its main thread's final record) ends it too.
    const done = finished.has(pid) || (hooksThreads.has(pid) && finished.has(pid.split('.')[0]));
    if (!done && !killed)
      problems.push(
        `runtime guard: the ${rt} process ${pid} ended without the guard's final record, so what it did last went unseen (it left through os._exit, a signal, or a closed channel)`,
      );
  }
  if (!ended)
    problems.push(
      `runtime guard: the guard's channel was still held open after the command's process group had ended (a process that left the group holds it)`,
    );
  return problems;
}

/** The names of the tests the guard saw fail, once for each failure. */
export function guardFailures(lines: string[]): string[] {
  return lines.flatMap((line) => {
    const r = parse(line);
    return r?.t === 'failed' && typeof r.name === 'string' ? [r.name] : [];
  });
}

/** The case a `failing` record names (a pytest node id), or null for any other line. */
export function failingCase(line: string): string | null {
  const r = parse(line);
  return r?.t === 'failing' && typeof r.name === 'string' ? r.name : null;
}

/** A name as a report may spell it: reporters drop or escape line breaks and other white space. */
const canon = (name: string) => name.replace(/[\s\\]/g, '');

/**
 * Failures the guard saw that the report does not show: for each name, the
 * report must hold at least as many failed cases whose name holds it (a
 * reporter may add the suites' names) as the guard saw fail; a pass, a skip
 * or no case at all is a result changed on its way.
 */
export function unreported(failures: string[], cases: TestCase[]): string[] {
  const failed = cases.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => canon(c.name));
  const exact = new Map<string, number>();
  for (const f of failed) exact.set(f, (exact.get(f) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const name of failures) seen.set(name, (seen.get(name) ?? 0) + 1);
  // The same name is the common case; a name held in a longer one is looked for only past it.
  const shown = (name: string) => exact.get(canon(name)) ?? 0;
  return [...seen]
    .filter(([name, n]) => shown(name) < n && failed.filter((f) => f.includes(canon(name))).length < n)
    .map(
      ([name]) =>
        `runtime guard: results changed on their way to the report: a test file's process sent ${JSON.stringify(name)} as failed, and the report does not show it failed`,
    );
}
