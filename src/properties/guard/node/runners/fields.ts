// A runner's field, set by the runner's own code: the check jest's and
// vitest's locks share.
// biome-ignore-all lint/suspicious/noExplicitAny: the runners' own objects, of any shape
import type { Kind } from '../paths.js';
import { refuse } from '../record.js';
import { type Frame, kindOfFrame, show, sites, UNREADABLE } from '../stack.js';
import {
  define,
  getOwnPropertyDescriptor,
  matches,
  nameOfKey,
  reflectDefine,
  reflectDelete,
  reflectSet,
} from '../taken.js';

export const VITEST_FILE = /[\\/]node_modules[\\/](?:vitest|vite-node|@vitest[\\/][^\\/]+)[\\/]/;
export const JEST_FILE = /[\\/]node_modules[\\/](?:expect|jest-[^\\/]+|@jest[\\/][^\\/]+)[\\/]/;

/** What setting a runner's field meets: the first frame of production code, else the setter's caller. */
export type SetterVerdict =
  | { refused: 'patch'; at: Frame }
  | { refused: 'caller'; caller: { kind: Kind; file: string; line: number } | null }
  | { refused: null };

/**
 * Whether a runner's field may be set from this stack: refused with
 * production code on it, and when the setter's caller is not a file of the
 * runner (`own`; null: any library's or the base's): a bound Reflect.set, or
 * a library function that assigns what it is handed (chai's util.flag),
 * queued by production code, leaves no frame of it behind.
 * `throughBuiltins`: the caller is the first frame with a file (an array's
 * push calls a Proxy's trap), and may be the base's too.
 */
export function setterVerdict(
  cs: Frame[],
  frameKind: (f: Frame) => Kind,
  own: RegExp | null,
  throughBuiltins: boolean,
): SetterVerdict {
  let caller: { kind: Kind; file: string; line: number } | null = null;
  for (let i = 0; i < cs.length; i++) {
    const k = frameKind(cs[i]);
    if (k === 'guard' || (throughBuiltins && k === 'internal')) continue;
    if (k === 'patch') return { refused: 'patch', at: cs[i] };
    caller ??= { kind: k, file: cs[i].file ?? '', line: cs[i].line ?? 0 };
  }
  const ok = own
    ? (caller?.kind === 'lib' && matches(own, caller.file)) || (throughBuiltins && caller?.kind === 'base')
    : caller?.kind === 'lib' || caller?.kind === 'base';
  return ok ? { refused: null } : { refused: 'caller', caller };
}

export function runnerSets(event: string, name: string, own: RegExp | null, throughBuiltins = false): void {
  const cs = sites();
  if (!cs) refuse(event, `${name} = …`, UNREADABLE);
  const v = setterVerdict(cs, kindOfFrame, own, throughBuiltins);
  if (v.refused === 'patch') refuse(event, `${name} = …`, { file: show(v.at.file), line: v.at.line ?? 0 });
  if (v.refused === 'caller') {
    const by = v.caller?.file ? show(v.caller.file) : '(no caller: a built-in function)';
    refuse(event, `${name} = … by ${by}, not the runner`, { file: by, line: v.caller?.line ?? 0 });
  }
}

/**
 * Equality testers (expect.addEqualityTesters pushes to them; every toEqual
 * consults them), held so that only the runner's or the base's code may add
 * one.
 */
export function heldTesters(testers: unknown[], own: RegExp, label: string): unknown[] {
  const check = () => runnerSets(`${label} equality testers changed`, 'customEqualityTesters', own, true);
  return new Proxy(testers, {
    set(t, k, v) {
      check();
      return reflectSet(t, k, v);
    },
    defineProperty(t, k, d) {
      check();
      return reflectDefine(t, k, d);
    },
    deleteProperty(t, k) {
      check();
      return reflectDelete(t, k);
    },
  });
}

/** A field that only the runner's code (`own`) may set, through `wrap` when given. */
export function runnerOwned(
  o: any,
  key: PropertyKey,
  label: string,
  wrap?: (v: any) => unknown,
  own: RegExp | null = VITEST_FILE,
): void {
  const d = getOwnPropertyDescriptor(o, key);
  if (d && (!d.configurable || !('value' in d))) return;
  let value = wrap ? wrap(d?.value) : d?.value;
  define(o, key, {
    get: () => value,
    set(v) {
      runnerSets(`${label} changed`, `${label}.${nameOfKey(key)}`, own);
      value = wrap ? wrap(v) : v;
    },
    enumerable: d ? d.enumerable : true,
    configurable: false,
  });
}
