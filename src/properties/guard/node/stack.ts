// Stack reading: who is calling, read from V8's call sites (whose methods V8
// fixes), which production code can neither hide frames from nor fill with
// code compiled under another file's name. The decisions over a list of
// frames (frameKind, actorIn, patchIn) are pure; the rest reads this
// process's stack.
import { type Kind, nodeKind, pathKind, show as showIn, type Where } from './paths.js';
import type { At } from './record.js';
import { define, isArray, list, matches } from './taken.js';

/** One frame of a stack, as V8's call site gives it. */
export interface Frame {
  file: string | null | undefined;
  line: number | null;
  evaled: boolean;
}

/** Who asked: the kind of the code (`none`: no one's) and where it is (`via`: under other code's). */
export interface Actor extends At {
  kind: Kind | 'none';
  via?: boolean;
}

/** Judges files against a Where, each file once. */
export interface Judge {
  kind(file: string | null | undefined): Kind;
  show(file: string | null | undefined): string;
}

export function judgeOf(w: Where): Judge {
  const kinds = new Map<string, Kind>();
  return {
    kind(file) {
      if (!file) return 'internal';
      let k = kinds.get(file);
      if (!k) {
        k = file.startsWith('node:') ? nodeKind(file) : pathKind(file, w);
        kinds.set(file, k);
      }
      return k;
    },
    show: (file) => showIn(file, w.tree),
  };
}

/** A frame's kind; code compiled from a string answers as the patch's unless installed or base code holds it. */
export function frameKind(f: Frame, j: Judge): Kind {
  const k = j.kind(f.file);
  return f.evaled && k !== 'lib' && k !== 'base' && k !== 'framework' ? 'patch' : k;
}

export const UNREADABLE: Actor = { kind: 'patch', file: '(stack unreadable)', line: 0 };
export const NO_CALLER = '(no caller: a callback Node itself runs)';

/**
 * The first frame that is not Node itself or the guard: whose code asked. A
 * call with none (a callback Node runs, such as setTimeout(process.exit))
 * answers to nobody, so it is refused too.
 */
export function actorIn(cs: Frame[] | null, j: Judge): Actor {
  if (!cs) return UNREADABLE;
  for (let i = 0; i < cs.length; i++) {
    const k = frameKind(cs[i], j);
    if (k === 'internal' || k === 'guard') continue;
    return { kind: k, file: j.show(cs[i].file), line: cs[i].line ?? 0 };
  }
  return { kind: 'none', file: NO_CALLER, line: 0 };
}

/**
 * The innermost frame of production code on the stack (`via`: under other
 * code's), a stand-in when the stack is unreadable or holds no one's code,
 * or null.
 */
export function patchIn(cs: Frame[] | null, j: Judge): Actor | null {
  if (!cs) return UNREADABLE;
  let someone = false;
  for (let i = 0; i < cs.length; i++) {
    const k = frameKind(cs[i], j);
    if (k === 'patch') return { kind: k, file: j.show(cs[i].file), line: cs[i].line ?? 0, via: someone };
    if (k !== 'internal' && k !== 'guard') someone = true;
  }
  return someone ? null : { kind: 'none', file: NO_CALLER, line: 0 };
}

/** Whether an actor may not do what only the runner may: production code's, or no one's. */
export const unowned = (a: Actor): boolean => a.kind === 'patch' || a.kind === 'none';

const VITEST_MODULE = /[\\/]node_modules[\\/](vitest|@vitest[\\/][^\\/]+)[\\/]/;
/**
 * The vitest file that asks for a vm context itself, if one does (a jsdom
 * environment making its window is not a pool).
 */
export function vmMakerIn(cs: Frame[], j: Judge): string | null {
  for (let i = 0; i < cs.length; i++) {
    const file = cs[i].file ?? '';
    const k = j.kind(file);
    if (k === 'internal' || k === 'guard') continue;
    return matches(VITEST_MODULE, file) ? j.show(file) : null;
  }
  return null;
}

// Error.prepareStackTrace becomes an accessor of the guard's, and the global
// Error fixed: code sets and reads its hook as ever, but while the guard
// reads a stack V8 meets the guard's own (a hook held by production code
// could leave its frames out). A stack trace limit set low cuts the stack
// short, and a stack with no caller in it is refused. Inside a hook's own run
// V8 gives text only (it calls no hook from a hook): `nested` says so.
const RealError = Error;
const capture = Error.captureStackTrace;
let reading = false;
/** The last stack read was text: read inside a stack trace hook's run. */
export let nested = false;
let userPrepare = RealError.prepareStackTrace;
/** The stack trace hook in force was set by production code (or no one's). */
export let prepareByPatch = false;
/** This process's judge (installStack). */
export let judge: Judge;

export function installStack(w: Where): void {
  judge = judgeOf(w);
  userPrepare = RealError.prepareStackTrace;
  const toSites = (_: Error, cs: NodeJS.CallSite[]) => cs;
  define(RealError, 'prepareStackTrace', {
    get: () => (reading ? toSites : userPrepare),
    set(fn) {
      prepareByPatch = unowned(actor());
      userPrepare = fn;
    },
    configurable: false,
    enumerable: false,
  });
  define(globalThis, 'Error', { value: RealError, writable: false, configurable: false, enumerable: false });
}

function callSites(from: (...args: never[]) => unknown, depth = Infinity): unknown {
  const limit = RealError.stackTraceLimit;
  const holder: { stack?: unknown } = {};
  reading = true;
  try {
    RealError.stackTraceLimit = depth;
    capture(holder, from);
    return holder.stack;
  } finally {
    reading = false;
    RealError.stackTraceLimit = limit;
  }
}

/** This stack's frames (`depth` at most), or null when the stack is unreadable. */
export function sites(depth?: number): Frame[] | null {
  try {
    const cs = callSites(sites, depth);
    nested = typeof cs === 'string';
    if (!isArray(cs)) return null;
    const out = list<Frame>();
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i] as NodeJS.CallSite;
      out[i] = { file: c.getFileName(), line: c.getLineNumber(), evaled: c.isEval() };
    }
    return out;
  } catch {
    return null;
  }
}

export const kind = (file: string | null | undefined): Kind => judge.kind(file);
export const show = (file: string | null | undefined): string => judge.show(file);
export const actor = (): Actor => actorIn(sites(), judge);
export const patchOnStack = (): Actor | null => patchIn(sites(), judge);
export const vmMaker = (): string | null => vmMakerIn(sites() ?? [], judge);
export const kindOfFrame = (f: Frame): Kind => frameKind(f, judge);
