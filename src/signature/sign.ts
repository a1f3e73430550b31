// The failure signature: a versioned hash of the exception type, the
// assertion kind, the project's function frames and the normalized message
// (the assertion's predicate where there is one). Test names, files, lines
// and paths never enter it. See docs/signatures.md for the exact algorithm.
import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import type { FailureRecord, TestCase } from '../junit/types.js';
import { globMatcher } from '../zones/glob.js';
import { anatomy, simpleName } from './anatomy.js';
import { namesSomething, statementAt } from './distinct.js';
import { extractFrames, phpMethodAt, type Frame } from './frames.js';
import { normalizeMessage } from './normalize.js';
import { assertion } from './predicate.js';
import type { SourceReader } from './source.js';
import type { Signed } from './types.js';

/** The algorithm's version: part of every hash, bumped when any rule changes. */
export const SIGNATURE_VERSION = 'v2';
/** Innermost project frames kept. */
export const FRAME_LIMIT = 8;

export interface SignOptions {
  /** True for a repository path whose frames count (signature.project). */
  project: (path: string) => boolean;
  /** Hex digits kept (signature.length). */
  length: number;
  /** signature.project is unset: JVM and .NET frames in the failing test's own namespace count wherever the sources sit. */
  byNamespace?: boolean;
  /** The checkout being judged, where the asserting expression is read; none outside one. */
  source?: SourceReader;
}

/** Options from the config: `signature.project`, by default the src zone's globs. */
export function signOptions(config: Config, ignoreCase = false, source?: SourceReader): SignOptions {
  const globs = config.signature.project ?? config.zones.find((z) => z.name === 'src')?.globs ?? [];
  return {
    project: globMatcher(globs, { ignoreCase }),
    length: config.signature.length,
    byNamespace: config.signature.project === null,
    ...(source ? { source } : {}),
  };
}

/** The primary failure or error of a case; reruns and flaky runs come after it. */
export function primaryRecord(tc: TestCase): FailureRecord | null {
  return tc.failures.find((f) => f.tag === 'failure' || f.tag === 'error') ?? null;
}

/**
 * The signature of a failing or erroring case, or of a flaky one: a case
 * Surefire reran, whose only records are `flakyFailure`/`flakyError` (or
 * `rerunFailure`/`rerunError`), is signed by its first record and marked
 * flaky, so that a flake is judged like a failure. Null for a case that
 * passed or was skipped with no such record.
 */
export function signCase(tc: TestCase, opts: SignOptions): Signed | null {
  if (tc.status === 'failed' || tc.status === 'error') {
    const rec = primaryRecord(tc);
    return rec ? signRecord(rec, tc.name, opts, tc.classname) : null;
  }
  const rerun = tc.failures.find((f) => /^(?:flaky|rerun)(?:Failure|Error)$/.test(f.tag));
  return rerun ? { ...signRecord(rerun, tc.name, opts, tc.classname), flaky: true } : null;
}

/** The signature of one failure record (`name` is metadata only; `classname` helps place JVM frames). */
export function signRecord(raw: FailureRecord, name: string, opts: SignOptions, classname = ''): Signed {
  const rec = { ...raw, message: plainText(raw.message), text: plainText(raw.text) };
  const parts = anatomy(rec);
  const exc = simpleName(parts.exc);
  const found = assertion(exc, parts.message, rec.text || rec.message);
  const all = extractFrames(parts.trace).map((f) => refined(f, opts.source));
  const kept = projectFrames(all, opts.project, classname, opts.byNamespace);
  const frames = kept.map((f) => f.fn);
  const message = normalizeMessage(found.predicate ?? parts.message);
  // Distinctive on its own: a project frame, or a predicate that names more than numbers and assertion words.
  const named = frames.length > 0 || (found.predicate !== null && namesSomething(message, found.kind));
  // An assertion that names nothing is read at its source; an error with neither frame nor predicate stays ineligible.
  const expression = named || found.predicate === null ? null : assertingExpression(all, parts.trace, opts.source);
  const eligible = named || expression !== null;
  const sig = digest([SIGNATURE_VERSION, exc, found.kind, frames, message, expression], opts.length, eligible);
  // The same parts hashed as v1 did: lets a v1 ledger row be recognized and re-keyed, never matched.
  const v1 = createHash('sha256')
    .update(JSON.stringify(['v1', exc, found.kind, frames, message]), 'utf8')
    .digest('hex')
    .slice(0, opts.length);
  const files = [...new Set(kept.flatMap((f) => f.file ?? []))];
  return {
    sig,
    exc,
    kind: found.kind,
    frames,
    files,
    message,
    ...(expression !== null ? { expression } : {}),
    name,
    eligible,
    v1,
  };
}

/**
 * sha256 of the parts, lowercase hex, cut to `length`. The first digit says
 * whether the failure may be frozen: 0 for an ineligible failure, never 0 for
 * an eligible one, so `freeze add` can refuse a signature without its report.
 */
function digest(parts: unknown[], length: number, eligible: boolean): string {
  const hex = createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex').slice(0, length);
  const first = eligible ? ((parseInt(hex[0], 16) % 15) + 1).toString(16) : '0';
  return first + hex.slice(1);
}

/** A path-only frame (PHPUnit) named by the method at its line, where the checkout has the file. */
function refined(f: Frame, source: SourceReader | undefined): Frame {
  if (!f.pathOnly || !f.file || !f.line || !source) return f;
  const text = source(f.file);
  const fn = text === null ? null : phpMethodAt(text, f.fn, f.line);
  return fn ? { ...f, fn } : f;
}

/** True for a signature that marks an ineligible failure (see digest). */
export function isIneligibleSig(sig: string): boolean {
  return sig.startsWith('0');
}

/**
 * The expression that failed, read at the innermost test-code frame: the
 * source line the trace quotes (Python), else the statement at that line of
 * the checkout. Normalized like a message; null when neither is there or
 * names anything that tells the defect (distinct.ts).
 */
function assertingExpression(frames: Frame[], trace: string, source: SourceReader | undefined): string | null {
  const at =
    frames.find((f) => f.file && f.line && !THIRD_PARTY.test(f.file) && isTestCode(f.file)) ?? testLocation(trace);
  if (!at?.file || !at.line) return null;
  const fromCheckout = () => {
    const text = source?.(at.file!);
    return text == null ? null : statementAt(text, at.line!, at.column);
  };
  // The quoted line first; the checkout's statement where the line alone names nothing (a `with` opening a block).
  for (const read of [() => at.src ?? null, fromCheckout]) {
    const text = read();
    const code = text === null ? null : normalizeMessage(withoutStrings(text));
    if (code !== null && namesSomething(code, 'unknown', 'code')) return code;
  }
  return null;
}

/** String literals are values, like numbers, and prose: `'tax included'` reworded keeps the expression. */
function withoutStrings(code: string): string {
  return code.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '<s>');
}

/** A `file:line` of test code named in the text where no frame is (Go's `bill_test.go:12:`, PHPUnit's path lines, testify's Error Trace). */
function testLocation(trace: string): Frame | null {
  for (const m of trace.matchAll(
    /(?:^|[\s(])((?:[A-Za-z]:)?[\w./\\@+-]*[\w@+-]\.(?:go|php|py|[cm]?[jt]sx?|java|kt|cs|rb|rs)):(\d+)\b/gm,
  )) {
    const file = m[1].replace(/\\/g, '/');
    if (!THIRD_PARTY.test(file) && isTestCode(file)) return { fn: '', file, line: Number(m[2]) };
  }
  return null;
}

function isTestCode(file: string): boolean {
  return TEST_FOLDER.test(file) || TEST_FILE.test(file);
}

// Terminal colours, raw or as pytest escapes them in XML (`#x1B[31m`).
const ANSI = /(?:\x1b|#x1B)\[[0-9;]*[A-Za-z]/g;

function plainText(s: string): string {
  return s.includes('\x1b') || s.includes('#x1B') ? s.replace(ANSI, '') : s;
}

// Folders of third-party and standard-library code, wherever they sit.
const THIRD_PARTY =
  /(?:^|\/)(?:node_modules|site-packages|dist-packages|vendor|\.cargo|\.rustup|rustc|go\/pkg\/mod|\.m2|\.gradle|lib\/python\d[^/]*|jdk[^/]*|usr\/lib|usr\/local\/lib|\.pyenv|\.venv|venv|Microsoft\.NET|gems)(?:\/|$)/;
// Test code never counts, even under a project glob.
const TEST_FOLDER = /(?:^|\/)(?:tests?|__tests__|__test__|specs?|testdata)\//;
const TEST_FILE =
  /(?:^|\/)(?:test_[^/]*\.py|[^/]*_test\.(?:py|go|rb|exs?)|conftest\.py|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?|[^/]*(?:Test|Tests|IT|TestCase|Spec)\.(?:java|kt|kts|scala|groovy|cs|php)|[^/]*_spec\.rb)$/;

/**
 * The project's frames, innermost first, consecutive repeats (recursion)
 * folded. A trace's path may be absolute or relative to another checkout:
 * a frame counts when any tail of its path that starts at a folder matches.
 */
function projectFrames(
  frames: Frame[],
  project: (path: string) => boolean,
  classname = '',
  byNamespace = false,
): Frame[] {
  const out: Frame[] = [];
  // JVM traces carry packages, not paths: the test's own package tells which are the project's.
  const home = classname.split('.').slice(0, 2);
  const homePrefix = home.length === 2 && home.every((s) => /^[a-z]\w*$/.test(s)) ? home.join('/') + '/' : '';
  for (const f of frames) {
    const counts =
      f.owner !== undefined
        ? (f.file !== null && isProject(f.file, project, '')) || (byNamespace && sameNamespace(f, classname))
        : f.file !== null && isProject(f.file, project, homePrefix, byNamespace);
    if (!counts) continue;
    if (out[out.length - 1]?.fn === f.fn) continue;
    out.push(f);
    if (out.length === FRAME_LIMIT) break;
  }
  return out;
}

/**
 * .NET: a frame of the failing test's own root namespace (`Acme.Billing.Bill`
 * for `Acme.Tests.BillTests`), outside its test projects, is the project's
 * wherever the build put the sources.
 */
function sameNamespace(f: Frame, classname: string): boolean {
  const root = classname.split('.')[0];
  const parts = f.owner!.split('.');
  if (!root || parts.length < 2 || parts[0] !== root || parts.some((p) => /(?:Tests?|Specs?)$/.test(p))) return false;
  return f.file === null || !(THIRD_PARTY.test(f.file) || TEST_FOLDER.test(f.file) || TEST_FILE.test(f.file));
}

// Each project matcher's answers by frame: a report's failures share most of their frames' files.
// Kept by the way a path is judged (byNamespace and homePrefix), then by the path itself, never joined into
// a new key: a frame read once (frames.ts) brings the same path string, whose hash is then known.
const answers = new WeakMap<(path: string) => boolean, Map<string, Map<string, boolean>>>();

function isProject(file: string, project: (path: string) => boolean, homePrefix: string, byNamespace = false): boolean {
  let byWay = answers.get(project);
  if (!byWay) answers.set(project, (byWay = new Map()));
  const way = `${byNamespace ? 'n' : '-'}${homePrefix}`;
  let known = byWay.get(way);
  if (!known) byWay.set(way, (known = new Map()));
  let answer = known.get(file);
  if (answer === undefined) known.set(file, (answer = projectFile(file, project, homePrefix, byNamespace)));
  return answer;
}

function projectFile(
  file: string,
  project: (path: string) => boolean,
  homePrefix: string,
  byNamespace: boolean,
): boolean {
  const path = file.replace(/^[A-Za-z]:\//, '/').replace(/^\.\//, '');
  if (THIRD_PARTY.test(path) || TEST_FOLDER.test(path) || TEST_FILE.test(path)) return false;
  const segments = path.split('/').filter((s) => s && s !== '.');
  for (let i = 0; i < segments.length; i++) {
    if (project(segments.slice(i).join('/'))) return true;
  }
  return jvmLayout(segments, project, homePrefix, byNamespace);
}

// The JDK, test frameworks, build tools and the languages' own libraries.
const JVM_LIBRARY =
  /^(?:java|javax|jdk|sun|com\/sun|org\/junit|junit|org\/opentest4j|org\/hamcrest|org\/assertj|org\/apache\/maven|org\/gradle|worker\/org\/gradle|org\/testng|kotlin|kotlinx|scala|org\/mockito|net\/bytebuddy|org\/jetbrains|com\/intellij|groovy|org\/codehaus|org\/spockframework|org\/springframework|io\/kotest|org\/scalatest)\//;

/**
 * JVM traces name a package and a bare file: try the source folders Maven and
 * Gradle use, within the test's own top two package levels; with no
 * signature.project, that package alone is enough (an Android `app/src/main`
 * or a module folder the src zone does not name).
 */
function jvmLayout(
  segments: string[],
  project: (path: string) => boolean,
  homePrefix: string,
  byNamespace: boolean,
): boolean {
  const ext = /\.(java|kt|kts|scala|groovy)$/.exec(segments[segments.length - 1] ?? '')?.[1];
  if (!ext || JVM_LIBRARY.test(segments.join('/'))) return false;
  if (homePrefix && !segments.join('/').startsWith(homePrefix)) return false;
  if (homePrefix && byNamespace) return true;
  const lang = ext === 'kts' ? 'kotlin' : ext === 'kt' ? 'kotlin' : ext;
  const rel = segments.join('/');
  return project(`src/main/${lang}/${rel}`) || (lang !== 'java' && project(`src/main/java/${rel}`));
}
