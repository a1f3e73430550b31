// What the runtime guards said about one run, judged. Every guarded
// interpreter opens with a `start` record and ends with a `final` one; a
// `finding` names an event, the file and line of the production code behind
// it. A run passes only with no finding, every started interpreter's final
// record, and a channel that ended cleanly. Pure: lines in, problems out.

interface GuardRecord {
  t: 'start' | 'final' | 'finding';
  pid: string | number;
  rt?: string;
  event?: string;
  detail?: string;
  file?: string;
  line?: number;
}

function parse(line: string): GuardRecord | null {
  try {
    const r = JSON.parse(line) as GuardRecord;
    return r && typeof r === 'object' && ['start', 'final', 'finding'].includes(r.t) && r.pid !== undefined ? r : null;
  } catch {
    return null;
  }
}

/** Why the guard's records refuse the run (empty: they let it stand). */
export function guardProblems(lines: string[], ended: boolean): string[] {
  const problems: string[] = [];
  const started = new Map<string, string>();
  const finished = new Set<string>();
  const seen = new Set<string>();
  for (const line of lines) {
    const r = parse(line);
    if (!r) {
      problems.push(
        `the runtime guard's channel carried a line that is not one of its records (${JSON.stringify(line.slice(0, 120))}): something else wrote to it`,
      );
      continue;
    }
    const pid = String(r.pid);
    if (r.t === 'start') started.set(pid, r.rt ?? 'guarded');
    else if (r.t === 'final') finished.add(pid);
    else {
      const at = r.file ? ` at ${r.file}${r.line ? `:${r.line}` : ''}` : '';
      const text = `runtime guard: ${r.event ?? 'event'}${at}: ${r.detail ?? ''}`;
      if (!seen.has(text)) problems.push(text);
      seen.add(text);
    }
  }
  for (const [pid, rt] of started) {
    if (!finished.has(pid))
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
