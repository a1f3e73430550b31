// Phase timings on stderr, when PATCHWARDEN_TRACE is set (to anything but
// 0 or empty): where a command's time goes, for a person measuring it. Each
// phase prints its wall time and the CPU time spent meanwhile by this process
// and by the child processes that ended meanwhile (Linux; elsewhere this
// process alone). Phases that overlap (the two sides of a revert check run at
// once) each count the CPU of both.
import { readFileSync } from 'node:fs';

const on = !!process.env.PATCHWARDEN_TRACE && process.env.PATCHWARDEN_TRACE !== '0';
const started = Date.now();

/** CPU ms of this process, and of its ended children (from /proc: clock ticks, 100 a second). */
function cpu(): { self: number; children: number } {
  const u = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat (cutime, cstime), counted from the state field (3).
    children = (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    // not Linux
  }
  return { self: (u.user + u.system) / 1000, children };
}

/** A moment of the timeline (a side's command starting), when tracing. */
export function traceMark(name: string): void {
  if (on) process.stderr.write(`patchwarden trace: ${name} (at ${Date.now() - started} ms)\n`);
}

/** `fn`, timed as phase `name` when tracing. */
export async function traced<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  if (!on) return fn();
  const t0 = Date.now();
  const c0 = cpu();
  try {
    return await fn();
  } finally {
    const c1 = cpu();
    process.stderr.write(
      `patchwarden trace: ${name}: ${Date.now() - t0} ms wall, CPU ${Math.round(c1.self - c0.self)} ms here + ${Math.round(c1.children - c0.children)} ms ended children (at ${Date.now() - started} ms)\n`,
    );
  }
}
