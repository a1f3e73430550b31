// The failure signature: a versioned hash of the exception type, the
// assertion kind, the project's function frames and the normalized message
// (the assertion's predicate where there is one). Test names, files, lines
// and paths never enter it. See docs/signatures.md for the exact algorithm.
import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import type { FailureRecord, TestCase } from '../junit/types.js';
import { globMatcher } from '../zones/glob.js';
import { anatomy, simpleName } from './anatomy.js';
import { extractFrames, type Frame } from './frames.js';
import { normalizeMessage } from './normalize.js';
import { assertion } from './predicate.js';
import type { Signed } from './types.js';

/** The algorithm's version: part of every hash, bumped when any rule changes. */
export const SIGNATURE_VERSION = 'v1';
/** Innermost project frames kept. */
export const FRAME_LIMIT = 8;

export interface SignOptions {
  /** True for a repository path whose frames count (signature.project). */
  project: (path: string) => boolean;
  /** Hex digits kept (signature.length). */
  length: number;
}

/** Options from the config: `signature.project`, by default the src zone's globs. */
export function signOptions(config: Config, ignoreCase = false): SignOptions {
  const globs = config.signature.project ?? config.zones.find((z) => z.name === 'src')?.globs ?? [];
  return { project: globMatcher(globs, { ignoreCase }), length: config.signature.length };
}

/** The primary failure or error of a case; reruns and flaky runs come after it. */
export function primaryRecord(tc: TestCase): FailureRecord | null {
  return tc.failures.find((f) => f.tag === 'failure' || f.tag === 'error') ?? null;
}

/** The signature of a failing or erroring case; null for a passed or skipped one. */
export function signCase(tc: TestCase, opts: SignOptions): Signed | null {
  if (tc.status !== 'failed' && tc.status !== 'error') return null;
  const rec = primaryRecord(tc);
  if (!rec) return null;
  return signRecord(rec, tc.name, opts, tc.classname);
}

/** The signature of one failure record (`name` is metadata only; `classname` helps place JVM frames). */
export function signRecord(raw: FailureRecord, name: string, opts: SignOptions, classname = ''): Signed {
  const rec = { ...raw, message: plainText(raw.message), text: plainText(raw.text) };
  const parts = anatomy(rec);
  const exc = simpleName(parts.exc);
  const found = assertion(exc, parts.message, rec.text || rec.message);
  const frames = projectFrames(extractFrames(parts.trace), opts.project, classname);
  const message = normalizeMessage(found.predicate ?? parts.message);
  const payload = JSON.stringify([SIGNATURE_VERSION, exc, found.kind, frames, message]);
  const sig = createHash('sha256').update(payload, 'utf8').digest('hex').slice(0, opts.length);
  return { sig, exc, kind: found.kind, frames, message, name, eligible: frames.length > 0 || found.predicate !== null };
}

// Terminal colours, raw or as pytest escapes them in XML (`#x1B[31m`).
const ANSI = /(?:\x1b|#x1B)\[[0-9;]*[A-Za-z]/g;

function plainText(s: string): string {
  return s.includes('\x1b') || s.includes('#x1B') ? s.replace(ANSI, '') : s;
}

// Folders of third-party and standard-library code, wherever they sit.
const THIRD_PARTY = /(?:^|\/)(?:node_modules|site-packages|dist-packages|vendor|\.cargo|\.rustup|rustc|go\/pkg\/mod|\.m2|\.gradle|lib\/python\d[^/]*|jdk[^/]*|usr\/lib|usr\/local\/lib|\.pyenv|\.venv|venv|Microsoft\.NET|gems)(?:\/|$)/;
// Test code never counts, even under a project glob.
const TEST_FOLDER = /(?:^|\/)(?:tests?|__tests__|__test__|specs?|testdata)\//;
const TEST_FILE = /(?:^|\/)(?:test_[^/]*\.py|[^/]*_test\.(?:py|go|rb|exs?)|conftest\.py|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?|[^/]*(?:Test|Tests|IT|TestCase|Spec)\.(?:java|kt|kts|scala|groovy|cs|php)|[^/]*_spec\.rb)$/;

/**
 * The project's frames, innermost first, consecutive repeats (recursion)
 * folded. A trace's path may be absolute or relative to another checkout:
 * a frame counts when any tail of its path that starts at a folder matches.
 */
export function projectFrames(frames: Frame[], project: (path: string) => boolean, classname = ''): string[] {
  const out: string[] = [];
  // JVM traces carry packages, not paths: the test's own package tells which are the project's.
  const home = classname.split('.').slice(0, 2);
  const homePrefix = home.length === 2 && home.every((s) => /^[a-z]\w*$/.test(s)) ? home.join('/') + '/' : '';
  for (const f of frames) {
    if (!f.file || !isProject(f.file, project, homePrefix)) continue;
    if (out[out.length - 1] === f.fn) continue;
    out.push(f.fn);
    if (out.length === FRAME_LIMIT) break;
  }
  return out;
}

function isProject(file: string, project: (path: string) => boolean, homePrefix: string): boolean {
  const path = file.replace(/^[A-Za-z]:\//, '/').replace(/^\.\//, '');
  if (THIRD_PARTY.test(path) || TEST_FOLDER.test(path) || TEST_FILE.test(path)) return false;
  const segments = path.split('/').filter((s) => s && s !== '.');
  for (let i = 0; i < segments.length; i++) {
    if (project(segments.slice(i).join('/'))) return true;
  }
  return jvmLayout(segments, project, homePrefix);
}

// The JDK, test frameworks, build tools and the languages' own libraries.
const JVM_LIBRARY = /^(?:java|javax|jdk|sun|com\/sun|org\/junit|junit|org\/opentest4j|org\/hamcrest|org\/assertj|org\/apache\/maven|org\/gradle|worker\/org\/gradle|org\/testng|kotlin|kotlinx|scala|org\/mockito|net\/bytebuddy|org\/jetbrains|com\/intellij|groovy|org\/codehaus|org\/spockframework|org\/springframework|io\/kotest|org\/scalatest)\//;

/** JVM traces name a package and a bare file: try the source folders Maven and Gradle use, within the test's own top two package levels. */
function jvmLayout(segments: string[], project: (path: string) => boolean, homePrefix: string): boolean {
  const ext = /\.(java|kt|kts|scala|groovy)$/.exec(segments[segments.length - 1] ?? '')?.[1];
  if (!ext || JVM_LIBRARY.test(segments.join('/'))) return false;
  if (homePrefix && !segments.join('/').startsWith(homePrefix)) return false;
  const lang = ext === 'kts' ? 'kotlin' : ext === 'kt' ? 'kotlin' : ext;
  const rel = segments.join('/');
  return project(`src/main/${lang}/${rel}`) || (lang !== 'java' && project(`src/main/java/${rel}`));
}
