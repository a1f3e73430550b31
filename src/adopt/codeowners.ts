// CODEOWNERS as GitHub and GitLab read it: which of the oracle paths a host
// will not merge without an owner's review. GitHub takes the first file of
// .github/, the root and docs/; GitLab the first of the root, docs/ and
// .gitlab/. In a file the last matching rule wins; GitLab's `[Section]`s are
// judged each on its own (an optional `^[Section]` requires nobody), and a
// rule with no owners (GitHub) or none by default (GitLab) leaves a path
// unowned.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isIgnored, isTracked } from '../git/files.js';
import type { Repo } from '../git/repo.js';
import { globMatcher } from '../zones/glob.js';
import { BUILTIN_GUARD, CODEOWNERS_FILES, CONFIG_FILE } from '../zones/names.js';
import type { Config } from '../config/schema.js';

interface Rule {
  matches: (p: string) => boolean;
  owners: string[];
  section: string;
}

/** The CODEOWNERS file a host reads here, or null: GitHub's order first, then GitLab's own place. */
export function codeownersFile(root: string): string | null {
  return CODEOWNERS_FILES.find((f) => existsSync(path.join(root, f))) ?? null;
}

/** A CODEOWNERS pattern (gitignore-like) as globs from the repository root. */
export function patternGlobs(pattern: string): string[] {
  let p = pattern.replace(/\\ /g, ' ');
  const anchored = p.startsWith('/') || /\/./.test(p.replace(/\/$/, ''));
  p = p.replace(/^\//, '');
  const dir = p.endsWith('/');
  if (dir) p = p.slice(0, -1);
  const base = anchored ? p : `**/${p}`;
  // `docs` names a file or a folder, `docs/` a folder, `docs/*` the files directly in it.
  return dir ? [`${base}/**`] : p.endsWith('/*') ? [base] : [base, `${base}/**`];
}

export function parseCodeowners(text: string): Rule[] {
  const rules: Rule[] = [];
  let section = '';
  let sectionOwners: string[] = [];
  let optional = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) continue;
    const head = /^(\^)?\[([^\]]+)\](?:\[\d+\])?\s*(.*)$/.exec(line);
    if (head) {
      section = head[2].toLowerCase();
      optional = Boolean(head[1]);
      sectionOwners = head[3].split(/\s+/).filter(Boolean);
      continue;
    }
    const [pattern, ...owners] = line.match(/(?:\\ |\S)+/g) ?? [];
    if (!pattern) continue;
    const effective = owners.length ? owners : sectionOwners;
    rules.push({ matches: globMatcher(patternGlobs(pattern)), owners: optional ? [] : effective, section });
  }
  return rules;
}

/** The owners whose review a host requires for `file`: the last matching rule of each section. */
export function requiredOwners(rules: Rule[], file: string): string[] {
  const last = new Map<string, Rule>();
  for (const r of rules) if (r.matches(file)) last.set(r.section, r);
  return [...new Set([...last.values()].flatMap((r) => r.owners))];
}

export interface OraclePath {
  /** A path inside it, to ask the rules about. */
  probe: string;
  /** The CODEOWNERS line's pattern that covers it. */
  pattern: string;
}

/** A zone glob as a CODEOWNERS pattern and a path inside it. */
function fromGlob(glob: string): OraclePath {
  if (/^[^*?[{]+\/\*\*$/.test(glob)) return { probe: `${glob.slice(0, -3)}/x`, pattern: `/${glob.slice(0, -2)}` };
  return {
    probe: glob.replace(/\*\*\/?/g, '').replace(/[*?]/g, 'x') || 'x',
    pattern: glob.startsWith('**/') ? glob.slice(3) : `/${glob}`,
  };
}

/**
 * The guard's own paths that are on disk but no part of the project: an
 * installed judge under an ignored node_modules. A CODEOWNERS line for them
 * would review nothing a commit can carry.
 */
async function installedOnly(repo: Repo, root: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (const g of BUILTIN_GUARD) {
    const literal = g.replace(/\/\*\*$/, '');
    if (/[*?{[]/.test(literal) || !existsSync(path.join(root, literal))) continue;
    if ((await isIgnored(repo, literal)) && !(await isTracked(repo, literal))) out.add(literal);
  }
  return out;
}

/** Every oracle path: the oracle zones, the files the config names, the guard's files and the workflows that run it, and CODEOWNERS itself. */
export function oraclePaths(root: string, config: Config, file: string, skip = new Set<string>()): OraclePath[] {
  const out: OraclePath[] = [];
  const add = (o: OraclePath) => {
    if (!out.some((x) => x.pattern === o.pattern)) out.push(o);
  };
  for (const z of config.zones) if (z.name !== 'src') for (const g of z.globs) add(fromGlob(g));
  const files = [
    config.freeze.ledger,
    config.fixtures.lock,
    config.properties.invariants,
    CONFIG_FILE,
    ...(config.owners.signers ? [config.owners.signers] : []),
  ];
  for (const f of files) add({ probe: f, pattern: `/${f}` });
  for (const g of BUILTIN_GUARD) {
    const literal = g.replace(/\/\*\*$/, '');
    if (CODEOWNERS_FILES.includes(literal) || literal === CONFIG_FILE || skip.has(literal)) continue;
    if (!/[*?{[]/.test(literal) && existsSync(path.join(root, literal)))
      add(g.endsWith('/**') ? fromGlob(g) : { probe: literal, pattern: `/${literal}` });
  }
  for (const dir of ['.github/workflows', '.gitlab-ci.yml'])
    if (existsSync(path.join(root, dir)))
      add(dir.endsWith('.yml') ? { probe: dir, pattern: `/${dir}` } : { probe: `${dir}/x.yml`, pattern: `/${dir}/` });
  add({ probe: file, pattern: `/${file}` });
  return out;
}

/** The oracle paths no owner covers; `fallback` is where a CODEOWNERS file would go when there is none. */
export async function uncovered(
  repo: Repo,
  root: string,
  config: Config,
  fallback = '.github/CODEOWNERS',
): Promise<{ file: string | null; missing: OraclePath[] }> {
  const file = codeownersFile(root);
  const rules = file ? parseCodeowners(readFileSync(path.join(root, file), 'utf8')) : [];
  const paths = oraclePaths(root, config, file ?? fallback, await installedOnly(repo, root));
  const open = paths.filter((o) => requiredOwners(rules, o.probe).length === 0);
  // A file inside a folder that needs a line anyway needs none of its own.
  const missing = open.filter(
    (o) => !open.some((other) => other !== o && globMatcher(patternGlobs(other.pattern))(o.probe)),
  );
  return { file, missing };
}

/** The lines that give each missing path an owner; a GitLab file with sections gets a section of its own. */
export function ownerLines(missing: OraclePath[], owner: string, sections: boolean): string[] {
  const width = Math.max(...missing.map((m) => m.pattern.length));
  return [
    "# patchwarden: the oracles that judge every patch change only with an owner's review",
    ...(sections ? ['[patchwarden oracles]'] : []),
    ...missing.map((m) => `${m.pattern.replace(/ /g, '\\ ').padEnd(width)}  ${owner}`),
  ];
}

/**
 * Names people write for "your team here": a CODEOWNERS line owned by one of
 * them binds nobody. Words a real team is called (owners, maintainers) are
 * not among them.
 */
const PLACEHOLDERS = new Set([
  'team',
  'teams',
  'org',
  'organization',
  'your-team',
  'yourteam',
  'your-org',
  'my-team',
  'myteam',
  'example',
  'placeholder',
  'todo',
  'changeme',
  'xxx',
  'foo',
  'bar',
]);

/**
 * Why `owner` is not a team handle init may write, or null. GitHub tells a
 * team from a person by its `@org/team` form; GitLab writes a top-level
 * group as `@group`, like a user, so there (`gitlab`) that form is taken on
 * the word of whoever runs init. A person or an email is refused: the review
 * must outlive whoever is on the team today. Placeholders are refused too.
 */
export function teamHandleProblem(owner: string, gitlab: boolean): string | null {
  const m = /^@([A-Za-z0-9][\w.-]*)(?:\/([A-Za-z0-9][\w.-]*(?:\/[A-Za-z0-9][\w.-]*)*))?$/.exec(owner);
  if (!m || (!m[2] && !gitlab))
    return `--codeowners takes a team handle (@org/team${gitlab ? ', or a GitLab group @group' : ''}), not ${JSON.stringify(owner)}: a review must not depend on one person`;
  const placeholder = owner
    .slice(1)
    .split('/')
    .find((part) => PLACEHOLDERS.has(part.toLowerCase()));
  if (placeholder)
    return `--codeowners ${owner}: "${placeholder}" is a placeholder, not a team; give your team's handle (the one in your host's team settings)`;
  return null;
}

/** Whether a CODEOWNERS text uses GitLab sections. */
export function usesSections(text: string): boolean {
  return /^\s*\^?\[[^\]]+\]/m.test(text);
}
