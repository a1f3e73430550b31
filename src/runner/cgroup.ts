// A cgroup of the run's own, where this process may make one: a child of its
// own cgroup in the unified hierarchy (cgroup v2, ended at once through
// `cgroup.kill`), else in the v1 freezer or pids hierarchy (new processes
// stopped first, by freezing or by `pids.max` 0, then every member killed,
// until none is left). Every process the command starts is born inside it,
// whatever session or group it moves to, and is found there at the end.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface CgroupBase {
  /** The folder new cgroups are made in: this process's own cgroup. */
  dir: string;
  kind: 'v2' | 'freezer' | 'pids';
}

/** Where each hierarchy is mounted, and which part of it the mount shows (a container's own subtree). */
function mounts(): { point: string; root: string; v2: boolean; options: string[] }[] {
  let text = '';
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    const [head, tail] = line.split(' - ');
    if (!tail) return [];
    const f = head.split(' ');
    const [fstype, , superOptions] = tail.split(' ');
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') return [];
    return [{ point: f[4], root: f[3], v2: fstype === 'cgroup2', options: (superOptions ?? '').split(',') }];
  });
}

/** This process's cgroup in each hierarchy, by its /proc/self/cgroup key ('' for v2, else the controller). */
function ownCgroups(): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (m) for (const c of m[1].split(',')) own.set(c, m[2]);
  }
  return own;
}

const NAME = 'patchwarden-';

/** A child cgroup can be made at `dir` and a process moved into it: tried with a shell that moves itself. */
function usable(base: CgroupBase): boolean {
  const dir = path.join(base.dir, `${NAME}probe-${process.pid}`);
  try {
    mkdirSync(dir);
  } catch {
    return false;
  }
  try {
    if (base.kind === 'v2' && !existsSync(path.join(dir, 'cgroup.kill'))) return false;
    const r = spawnSync('sh', ['-c', 'echo $$ > "$1"', 'sh', path.join(dir, 'cgroup.procs')], {
      stdio: 'ignore',
      timeout: 10_000,
    });
    return r.status === 0;
  } finally {
    removeCgroup(dir);
  }
}

/** The cgroup new runs are made in, or null where this process may make none. */
export function cgroupBase(): CgroupBase | null {
  if (process.platform !== 'linux') return null;
  let own: Map<string, string>;
  try {
    own = ownCgroups();
  } catch {
    return null;
  }
  const all = mounts();
  const candidates: CgroupBase[] = [];
  const under = (m: (typeof all)[number], p: string | undefined, kind: CgroupBase['kind']) => {
    if (p === undefined || !(p === m.root || p.startsWith(`${m.root.replace(/\/$/, '')}/`))) return;
    candidates.push({ dir: path.join(m.point, p.slice(m.root.length)), kind });
  };
  for (const m of all.filter((x) => x.v2)) under(m, own.get(''), 'v2');
  for (const kind of ['freezer', 'pids'] as const)
    for (const m of all.filter((x) => !x.v2 && x.options.includes(kind))) under(m, own.get(kind), kind);
  return candidates.find(usable) ?? null;
}

/** A new, empty cgroup for one run. */
export function makeCgroup(base: CgroupBase): string {
  for (let n = 0; ; n++) {
    const dir = path.join(base.dir, `${NAME}${process.pid}-${n}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/** The members of a cgroup and of every cgroup below it. */
function members(dir: string): number[] {
  const pids: number[] = [];
  const walk = (d: string) => {
    try {
      for (const l of readFileSync(path.join(d, 'cgroup.procs'), 'utf8').split('\n')) if (l) pids.push(Number(l));
      for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
    } catch {
      /* removed meanwhile */
    }
  };
  walk(dir);
  return pids;
}

/** Writes a control file, quietly: a cgroup being emptied may refuse or vanish. */
function put(file: string, value: string): void {
  try {
    writeFileSync(file, value);
  } catch {
    /* judged by what is left */
  }
}

/** Every cgroup at and below `dir`, deepest first. */
function tree(dir: string): string[] {
  const out: string[] = [];
  try {
    for (const e of readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) out.push(...tree(path.join(dir, e.name)));
  } catch {
    return out;
  }
  out.push(dir);
  return out;
}

/** One pass at ending every member: v2 kills the whole subtree at once; v1 stops new processes, kills each member, lets the kills land. */
export function killCgroup(dir: string, kind: CgroupBase['kind']): void {
  if (kind === 'v2') {
    put(path.join(dir, 'cgroup.kill'), '1');
    return;
  }
  const cgroups = tree(dir);
  // A frozen task takes its SIGKILL only when thawed; a child cgroup the run froze itself is thawed too.
  for (const d of cgroups)
    put(path.join(d, kind === 'freezer' ? 'freezer.state' : 'pids.max'), kind === 'freezer' ? 'FROZEN' : '0');
  for (const pid of members(dir))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  if (kind === 'freezer') for (const d of cgroups) put(path.join(d, 'freezer.state'), 'THAWED');
}

/** Removes a cgroup and the ones the run made below it; false when one is still in use. */
function removeCgroup(dir: string): boolean {
  for (const d of tree(dir))
    try {
      rmdirSync(d);
    } catch {
      return false;
    }
  return true;
}

/**
 * Ends every process in the run's cgroup and removes it, trying for up to
 * `ms`; the PIDs (as this process sees them) still alive after that.
 */
export async function endCgroup(dir: string, kind: CgroupBase['kind'], ms = 10_000): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    killCgroup(dir, kind);
    const left = members(dir);
    if (!left.length && removeCgroup(dir)) return [];
    if (Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Ends and removes cgroups earlier runs left behind when patchwarden was killed before it could (their maker is gone). */
export function sweepCgroups(base: CgroupBase): void {
  let names: string[];
  try {
    names = readdirSync(base.dir).filter((n) => n.startsWith(NAME));
  } catch {
    return;
  }
  for (const n of names) {
    const maker = Number(/^patchwarden-(?:probe-)?(\d+)/.exec(n)?.[1]);
    if (!maker || maker === process.pid || existsSync(`/proc/${maker}`)) continue;
    const dir = path.join(base.dir, n);
    for (let i = 0; i < 50 && members(dir).length; i++) killCgroup(dir, base.kind);
    removeCgroup(dir);
  }
}

/** The shell line's argument vector that moves the shell into `dir` before it runs `line`; exit 125 where it cannot. */
export function inCgroup(dir: string, line: string): string[] {
  return [
    '-c',
    'echo $$ > "$1" || { echo "patchwarden: cannot enter the cgroup $1" >&2; exit 125; }; exec sh -c "$2"',
    'sh',
    path.join(dir, 'cgroup.procs'),
    line,
  ];
}
