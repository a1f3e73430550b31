// jest: it runs each test file in a vm context of its own (vm.ts locks the
// context's globals and built-ins), and jest-circus keeps what decides each
// result on that context's global: the list of event handlers it calls with
// every event (a handler added there can clear a failed test's errors), its
// state (every test, the running one, their errors), and expect's matchers.
// Before the first file of production code is compiled in a context (jest
// and the base's setup files have set them up by then), the list gets the
// guard's own handler and is frozen, and the globals holding the list, the
// state and the matchers become read-only, as do the matchers defined by
// then, and expect's equality testers take a new one only from jest's or the
// base's code. The guard's handler makes each test's errors append-only as
// it starts, and its `failing` flag the runner's to set; once collection
// ends it freezes every describe block's children, after checking none was
// removed. (A status or mode changed makes a test skipped at most: the
// revert check refuses a case skipped on head only.)
// biome-ignore-all lint/suspicious/noExplicitAny: jest-circus's state and a test context's global, of jest's shape
import { checkLocked, type Owners } from '../locks.js';
import { refuse } from '../record.js';
import type { Kind } from '../paths.js';
import { actor, type Frame, kindOfFrame, patchOnStack, show, sites, UNREADABLE } from '../stack.js';
import {
  apply,
  define,
  freeze,
  isIndex,
  isProxy,
  matches,
  ownKeys,
  readOnly,
  reflectDefine,
  reflectSet,
} from '../taken.js';
import { heldTesters, JEST_FILE } from './fields.js';

const JEST_MAIN = /[\\/](jest-cli|jest-worker)[\\/]|[\\/]jest[\\/]bin[\\/]|[\\/]jest(\.js)?$/;
/** Whether this process is jest's (`main`: process.argv[1]): its CLI or one of its workers. */
export const isJestMain = (main: string): boolean => JEST_MAIN.test(main);

const CIRCUS = '(jest-circus state)';

export function lockCircus(g: any, owners: Owners): void {
  const HANDLERS = Symbol.for('EVENT_HANDLERS');
  const handlers = g[HANDLERS];
  const STATE = Object.getOwnPropertySymbols(g).find((s) => s.description === 'JEST_STATE_SYMBOL');
  if (!Array.isArray(handlers) || !STATE) return;
  const state = g[STATE];
  const CtxArray = g.Array;
  let tests = count(state.rootDescribeBlock);
  for (let i = 0; i < handlers.length; i++) handlers[i] = circusOnly(handlers[i]);
  handlers.push((event: any, st: any) => {
    if (event.name === 'add_test') {
      tests++;
      // The test circus has just made: its function is fixed (circus
      // reads it again as it calls the test).
      const ch = st.currentDescribeBlock?.children;
      const added = Array.isArray(ch) ? ch[ch.length - 1] : undefined;
      if (added?.type === 'test') readOnly(added, 'fn');
    } else if (event.name === 'test_start') lockTest(event.test, CtxArray);
    else if (event.name === 'test_done' || event.name === 'run_finish') checkLocked(owners);
    else if (event.name === 'run_start') {
      const now = count(st.rootDescribeBlock);
      if (now < tests)
        refuse('jest test removed', `${tests - now} of ${tests} tests gone from their describe blocks`, {
          file: CIRCUS,
          line: 0,
        });
      lockChildren(st.rootDescribeBlock);
    }
  });
  // Production code first loaded from inside a test (a require in its
  // body): the tests are collected and one is running.
  if (state.hasStarted) {
    lockChildren(state.rootDescribeBlock);
    if (state.currentlyRunningTest) lockTest(state.currentlyRunningTest, CtxArray);
  }
  freeze(handlers);
  readOnly(g, HANDLERS);
  readOnly(g, STATE);
  const MATCHERS = Symbol.for('$$jest-matchers-object');
  const jm = g[MATCHERS];
  if (jm && typeof jm === 'object' && jm.matchers) {
    readOnly(jm, 'matchers');
    for (const name of ownKeys(jm.matchers)) readOnly(jm.matchers, name);
    if (Array.isArray(jm.customEqualityTesters)) {
      jm.customEqualityTesters = heldTesters(jm.customEqualityTesters, JEST_FILE, 'jest expect');
      readOnly(jm, 'customEqualityTesters');
    }
  }
}

const CIRCUS_FILE = /[\\/]node_modules[\\/]jest-circus[\\/]/;
/**
 * Whether one of circus's event handlers may run from this stack: only from
 * circus's own dispatch, the first frame under it outside Node jest-circus's
 * and none production code's. Returns where to refuse it, or null.
 */
export function circusCallRefused(
  cs: Frame[],
  frameKind: (f: Frame) => Kind,
  showFile: (file: string | null | undefined) => string,
): { file: string; line: number } | null {
  let caller: string | null | undefined = null;
  for (let i = 0; i < cs.length; i++) {
    const k = frameKind(cs[i]);
    if (k === 'patch') return { file: showFile(cs[i].file), line: cs[i].line ?? 0 };
    if (k !== 'internal' && k !== 'guard') caller ??= cs[i].file;
  }
  if (caller === null) return { file: '(no caller: a callback Node itself runs)', line: 0 };
  if (!matches(CIRCUS_FILE, caller as string)) return { file: showFile(caller), line: 0 };
  return null;
}

/**
 * circus calls each handler of its list from its own dispatch. Called any
 * other way (by production code, or queued with its arguments bound so that
 * no frame of production code is on the stack when it runs) a handler can
 * clear a failed test's errors.
 */
function circusOnly(handler: unknown): unknown {
  if (typeof handler !== 'function') return handler;
  const event = 'jest event handler called';
  const detail = "one of jest-circus's event handlers called outside circus's dispatch";
  return function circusHandler(this: unknown, ...args: unknown[]) {
    const cs = sites();
    if (!cs) refuse(event, detail, UNREADABLE);
    const at = circusCallRefused(cs, kindOfFrame, show);
    if (at) refuse(event, detail, at);
    return apply(handler, this, args);
  };
}

/** Walked by index: the context's array iterator is production code's to replace. */
function children(block: any): any[] {
  const ch = block?.children;
  if (ch === undefined) return [];
  if (!Array.isArray(ch) || isProxy(ch))
    refuse('jest test tree replaced', "a describe block's children are not jest's array", { file: CIRCUS, line: 0 });
  return ch;
}
function count(block: any): number {
  const ch = children(block);
  let n = 0;
  for (let i = 0; i < ch.length; i++) n += ch[i].type === 'test' ? 1 : count(ch[i]);
  return n;
}
function lockChildren(block: any): void {
  const ch = children(block);
  for (let i = 0; i < ch.length; i++) {
    if (ch[i].type === 'test') readOnly(ch[i], 'fn');
    else lockChildren(ch[i]);
  }
  freeze(ch);
  readOnly(block, 'children');
}

/**
 * A result field is the runner's to set: refused when production code asks,
 * or is anywhere on the stack (calling one of jest's handlers itself), or
 * nobody's code is (a callback Node runs). One walk of the stack.
 */
function byRunner(event: string, name: string): void {
  const a = patchOnStack();
  if (a) refuse(event, a.via ? `${name} = … through the runner's own code` : `${name} = …`, a);
}

// A test jest retries starts again, already locked.
const started = new WeakSet<object>();
/**
 * A test's errors become an array production code can only append to.
 * Replaced (jest maps a test's errors to formatted ones as it ends, and
 * clears them to retry it), it is the runner that replaces it.
 */
function lockTest(test: any, CtxArray: ArrayConstructor): void {
  if (started.has(test)) return;
  started.add(test);
  const changed = (what: string) => refuse('jest test errors changed', `${what} on the running test's errors`, actor());
  const appendOnly = (from: unknown[]) => {
    const target = new CtxArray();
    for (let i = 0; i < from.length; i++)
      define(target, i, { value: from[i], writable: true, enumerable: true, configurable: true });
    return new Proxy(target, {
      set(t, k, v) {
        if (isIndex(k) ? Number(k) < t.length : k !== 'length' || v < t.length) changed(`${String(k)} = …`);
        // Defined, not set: an index setter on the context's
        // Array.prototype would meet a set.
        if (isIndex(k)) return reflectDefine(t, k, { value: v, writable: true, enumerable: true, configurable: true });
        return reflectSet(t, k, v);
      },
      defineProperty(t, k, d) {
        if (!isIndex(k) || Number(k) < t.length || !('value' in d)) changed(`defineProperty(${String(k)})`);
        return reflectDefine(t, k, d);
      },
      deleteProperty: (_, k) => changed(`delete ${String(k)}`),
      setPrototypeOf: () => changed('setPrototypeOf'),
      preventExtensions: () => changed('preventExtensions'),
    });
  };
  let errors = appendOnly(Array.isArray(test.errors) ? test.errors : []);
  define(test, 'errors', {
    get: () => errors,
    set(value) {
      byRunner('jest test errors replaced', 'errors');
      errors = appendOnly(Array.isArray(value) ? value : []);
    },
    enumerable: true,
    configurable: false,
  });
  // Whether a failure is the one expected (`test.failing`), which passes.
  let failing = test.failing;
  define(test, 'failing', {
    get: () => failing,
    set(v) {
      byRunner('jest test failing replaced', 'failing');
      failing = v;
    },
    enumerable: true,
    configurable: false,
  });
}
