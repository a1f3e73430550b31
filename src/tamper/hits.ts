// One file's hits: the rules of its language, on the lines a change adds.
// Loaded beside the layer's diff, which nearly every change with production
// code needs.
import { createRequire } from 'node:module';
import type { Lang } from './lang.js';
import type { Tokens } from './lex.js';
import { foreignCoding, INTEREST, opaqueLoads, RULES, ruleReads, WHY, type RuleId } from './rules.js';
import { readSource, type Span } from './scan.js';

export interface Hit {
  path: string;
  line: number;
  rule: RuleId;
  /** The matched line, trimmed. */
  text: string;
  /** sha256 of the trimmed line: what an allow row's `line` pins (of the whole file for `source.opaque`). */
  digest: string;
  why: string;
  /** `source.opaque` from a `require`/`import`: the relative path it loads, resolved against the tree by the judge. */
  loads?: string;
}

/** node:crypto is loaded at the first hit: it brings some twenty internal modules, and most pushes have no hit. */
let crypto: typeof import('node:crypto') | null = null;

export function sha256(data: string | Buffer): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return crypto.createHash('sha256').update(data).digest('hex');
}

export function lineDigest(text: string): string {
  return sha256(text.trim());
}

/**
 * Hits in `text`, reported on lines in `added` (null: every line). A match
 * spread over several lines counts when any of them is added.
 */
export function hitsIn(
  path: string,
  text: string,
  lang: Lang,
  added: ReadonlySet<number> | null,
  disabled: ReadonlySet<string>,
): Hit[] {
  const src = readSource(text, lang, path, ruleReads, INTEREST);
  const lineAt = linesOf(text);
  const seen = new Set<string>();
  const out: Hit[] = [];
  const hit = (rule: RuleId, line: number, extra: Partial<Hit> = {}) => {
    const raw = lineAt(line).replace(/\r$/, '');
    out.push({ path, line, rule, text: shorten(raw.trim()), digest: lineDigest(raw), why: WHY[rule], ...extra });
  };
  if (!disabled.has('source.opaque')) {
    // The declared encoding changes every line, so any added line makes it count.
    const coding = lang === 'python' && (!added || added.size) ? foreignCoding(text) : null;
    if (coding) hit('source.opaque', coding.line);
    if (lang === 'js') {
      for (const m of opaqueLoads(src)) {
        const line = reportedLine(src.toks, [m.at, m.at + 1], added);
        if (line !== null) hit('source.opaque', line, { loads: m.module });
      }
    }
  }
  for (const rule of RULES) {
    if (rule.lang !== lang || disabled.has(rule.id)) continue;
    for (const span of rule.find(src)) {
      const line = reportedLine(src.toks, span, added);
      if (line === null || seen.has(`${line} ${rule.id}`)) continue;
      seen.add(`${line} ${rule.id}`);
      hit(rule.id, line);
    }
  }
  return out.sort((a, b) => a.line - b.line || a.rule.localeCompare(b.rule));
}

/** A reader of the text's 1-based lines ('' past the end), indexed when a hit first needs one: most files have none. */
function linesOf(text: string): (line: number) => string {
  let starts: number[] | null = null;
  return (line) => {
    if (!starts) {
      starts = [0];
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    }
    if (line < 1 || line > starts.length) return '';
    return text.slice(starts[line - 1], line < starts.length ? starts[line] - 1 : text.length);
  };
}

/** The first added line the span covers, or null when it covers none. */
function reportedLine(toks: Tokens, [a, b]: Span, added: ReadonlySet<number> | null): number | null {
  const first = a >= 0 && a < toks.length ? toks.line(a) : 1;
  const z = Math.max(a, b - 1);
  const last = Math.max(first, z >= 0 && z < toks.length ? toks.endLine(z) : first);
  if (!added) return first;
  for (let l = first; l <= last; l++) if (added.has(l)) return l;
  return null;
}

function shorten(s: string): string {
  return s.length > 160 ? s.slice(0, 157) + '...' : s;
}
