// What a push costs the server hook, in units that do not depend on how
// loaded the server is (bytes of production code to scan for tamper, new
// commits to walk, signatures to verify), and the caps it is held to: the
// config's `server.caps`, else on GitHub Enterprise Server (which kills a
// pre-receive hook after 5 s) the defaults below. No cap is a clock: a slow
// or busy server never turns an honest push into a refusal.
import type { Violation } from '../common/verdict.js';
import { formatSize } from '../common/size.js';
import { counted, shellQuote, showPath } from '../common/text.js';
import type { Config, ServerCaps } from '../config/schema.js';
import { blobSizes } from '../git/objects.js';
import { ABSENT, GITLINK, SYMLINK } from '../git/raw-diff.js';
import type { Repo } from '../git/repo.js';
import { touchedSides } from '../mixing/rule.js';
import { OVERRIDE_TRAILER } from '../owners/override.js';
import type { Classify } from '../zones/classify.js';
import { CONFIG_FILE } from '../zones/names.js';
import type { Pushed } from './pre-receive.js';

/**
 * GitHub Enterprise Server's defaults, each alone within its 5 s on two cores
 * with room to spare, from the hook's CPU time here: the tamper scan of dense
 * TypeScript at about 2 MB a second (4 MB: 2.1 s), a commit well under a
 * millisecond (10,000: under 1.5 s), a signature under a millisecond, checked
 * in-process (1,000: the whole hook 0.6 s; a certificate, which git checks with
 * two ssh-keygen processes, about 16 ms). `npm run bench server` pushes each
 * cap's worth and prints the time beside the 5 s (docs/server.md).
 */
export const GHES_CAPS: ServerCaps = { scan_bytes: 5e6, commits: 10_000, signatures: 1000 };

/** GitHub Enterprise Server's pre-receive environment names the pusher and the repository. */
export function onGhes(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.GITHUB_USER_LOGIN && env.GITHUB_REPO_NAME);
}

export interface Caps {
  caps: ServerCaps;
  /** Where each set cap comes from, for the refusal. */
  from: Record<keyof ServerCaps, string>;
}

/** The caps in force: each key of `server.caps`, else GHES's default where the hook runs there; null when none is. */
export function capsFor(config: Config, env: NodeJS.ProcessEnv): Caps | null {
  const ghes = onGhes(env);
  const caps = { ...config.server.caps };
  const from = { scan_bytes: '', commits: '', signatures: '' };
  for (const k of Object.keys(caps) as (keyof ServerCaps)[]) {
    if (caps[k] !== null) from[k] = `server.caps.${k} in ${config.source}`;
    else if (ghes) {
      caps[k] = GHES_CAPS[k];
      from[k] =
        `the default on GitHub Enterprise Server, whose pre-receive hooks are stopped after 5 s; server.caps.${k} in ${CONFIG_FILE} sets another`;
    }
  }
  return Object.values(caps).some((c) => c !== null) ? { caps, from } : null;
}

/** One commit's share of the cost. */
interface Share {
  bytes: number;
  signatures: number;
}

export interface Cost {
  scan_bytes: number;
  commits: number;
  signatures: number;
  /** The production files the scan reads, largest first. */
  files: { path: string; bytes: number }[];
  /** Each new commit's share, for splitting the push. */
  share: Map<string, Share>;
}

/** Blob sizes, from one process. */
async function sizes(repo: Repo, oids: string[]): Promise<Map<string, number>> {
  if (!oids.length) return new Map();
  const each = await blobSizes(repo, oids);
  return new Map(oids.map((oid, i) => [oid, each[i]]));
}

/**
 * The push's cost: the production files its commits leave (each path's
 * newest blob, what the tamper scan reads), its new commits, and the
 * signatures git verifies (oracle commits where owners.signers is set, and
 * override claims).
 */
export async function pushCost(repo: Repo, config: Config, push: Pushed, classify: Classify): Promise<Cost> {
  const scanned = (mode: string) => mode !== ABSENT && mode !== SYMLINK && mode !== GITLINK;
  const scans = config.tamper.mode !== 'off';
  const newest = new Map<string, string>();
  const blobs = new Set<string>();
  for (const c of push.all)
    for (const ch of scans ? (push.changes.get(c) ?? []) : [])
      if (scanned(ch.newMode) && classify(ch.path) === 'src') {
        newest.set(ch.path, ch.newOid);
        blobs.add(ch.newOid);
      }
  const size = await sizes(repo, [...blobs]);
  const share = new Map<string, Share>();
  let signatures = 0;
  for (const c of push.all) {
    const changes = push.changes.get(c) ?? [];
    let bytes = 0;
    for (const ch of scans ? changes : [])
      if (scanned(ch.newMode) && classify(ch.path) === 'src') bytes += size.get(ch.newOid) ?? 0;
    const verified =
      (config.owners.signers !== null && touchedSides(changes, classify).oracle) || push.trailers.has(c) ? 1 : 0;
    signatures += verified;
    share.set(c, { bytes, signatures: verified });
  }
  const files = [...newest]
    .map(([p, oid]) => ({ path: p, bytes: size.get(oid) ?? 0 }))
    .sort((a, b) => b.bytes - a.bytes);
  return {
    scan_bytes: files.reduce((n, f) => n + f.bytes, 0),
    commits: push.all.length,
    signatures,
    files,
    share,
  };
}

const UNIT: Record<keyof ServerCaps, (n: number) => string> = {
  scan_bytes: (n) => `${formatSize(n)} of production code to scan for tamper`,
  commits: (n) => counted(n, 'new commit'),
  signatures: (n) => counted(n, 'signature'),
};

/** The commits of one ref in pushes that each stay within the caps, oldest first: each push's last commit. */
function chunks(commits: string[], cost: Cost, caps: ServerCaps): { ends: string[]; alone: string | null } {
  const ends: string[] = [];
  let sum = { bytes: 0, commits: 0, signatures: 0 };
  const over = (s: typeof sum) =>
    s.bytes > (caps.scan_bytes ?? Infinity) ||
    s.commits > (caps.commits ?? Infinity) ||
    s.signatures > (caps.signatures ?? Infinity);
  for (const [i, c] of commits.entries()) {
    const s = cost.share.get(c) ?? { bytes: 0, signatures: 0 };
    const one = { bytes: s.bytes, commits: 1, signatures: s.signatures };
    if (over(one)) return { ends, alone: c };
    const next = {
      bytes: sum.bytes + one.bytes,
      commits: sum.commits + 1,
      signatures: sum.signatures + one.signatures,
    };
    if (over(next)) {
      ends.push(commits[i - 1]);
      sum = one;
    } else sum = next;
  }
  ends.push(commits[commits.length - 1]);
  return { ends, alone: null };
}

/** The most pushes a refusal spells out. */
const SHOWN = 20;

/**
 * The refusal of a push over a cap: each cap it passes (the figure against
 * the cap, the largest files), and for each ref how to push it in parts that
 * each stay within the caps, or, where one commit alone is over, an owner's
 * override.
 */
export function costViolations(cost: Cost, caps: Caps, refs: { ref: string; commits: string[] }[]): Violation[] {
  const keys = (Object.keys(UNIT) as (keyof ServerCaps)[]).filter(
    (k) => caps.caps[k] !== null && cost[k] > caps.caps[k]!,
  );
  if (!keys.length) return [];
  const lines: string[] = [];
  for (const r of refs.filter((x) => x.commits.length)) {
    const { ends, alone } = chunks(r.commits, cost, caps.caps);
    if (alone) {
      lines.push(`commit ${alone.slice(0, 12)} alone is over a cap of ${r.ref}, so no split of it stays within them.`);
      continue;
    }
    lines.push(`push ${r.ref} in ${counted(ends.length, 'part')}, one push each, in this order:`);
    for (const end of ends.slice(0, SHOWN)) lines.push(`  git push origin ${end}:${shellQuote(r.ref)}`);
    if (ends.length > SHOWN)
      lines.push(`  (then ${ends.length - SHOWN} more: the push is refused again with the next ones)`);
  }
  if (refs.length > 1) lines.unshift('push one ref at a time;');
  lines.push(
    `or, where the push must land whole, a human owner (a key in owners.signers) signs an override commit on top of it: git -c gpg.format=ssh -c user.signingkey=KEY commit -S --allow-empty --trailer "${OVERRIDE_TRAILER}: REASON" -m MESSAGE`,
  );
  const largest = cost.files.slice(0, 3);
  const over = keys.map(
    (k) =>
      `${UNIT[k](cost[k])}, over the cap of ${UNIT[k](caps.caps[k]!)} (${caps.from[k]})${
        k === 'scan_bytes'
          ? `; the largest: ${largest.map((f) => `${showPath(f.path)} (${formatSize(f.bytes)})`).join(', ')}`
          : ''
      }`,
  );
  return [
    {
      rule: 'push-cost',
      paths: keys.includes('scan_bytes') ? largest.map((f) => f.path) : [],
      message: `this push is refused before it is judged: it brings ${over.join('; and ')}`,
      fix: lines.join('\n'),
    },
  ];
}
