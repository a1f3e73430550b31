// A sample repository for the gate: a base commit on main with the config,
// and a topic branch whose commits the gate judges.
import { createHash } from 'node:crypto';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

export const NOW = '2026-12-02T00:00:00Z';

export const sha = (s: string) => createHash('sha256').update(s).digest('hex');
export const lock = (files: Record<string, string>) =>
  Object.keys(files)
    .sort()
    .map((f) => `${sha(files[f])}  ${f}\n`)
    .join('');

export function row(sig: string, extra = ''): string {
  return `  - sig: ${sig}\n    reason: flaky clock\n    owner: qa-team\n    expires: 2026-12-09T00:00:00Z\n${extra}`;
}

/** main holds the config (and any files given); HEAD is a topic branch off it. */
export function sample(config = 'version: 1\n', files: Record<string, string> = {}): TempRepo {
  const repo = tempRepo({ env: { PATCHWARDEN_NOW: NOW } });
  repo.commit(
    { '.patchwarden.yml': config, 'src/app.js': 'export const a = 1;\n', 'README.md': 'sample\n', ...files },
    'base',
  );
  repo.git(['checkout', '-q', '-b', 'topic']);
  return repo;
}

/** The gate's JSON, and its layers by name. */
export function gate(repo: TempRepo, args: string[] = []) {
  const r = repo.json(['gate', '--base', 'main', ...args]);
  const layers = Object.fromEntries((r.out.layers ?? []).map((l: { layer: string }) => [l.layer, l]));
  return {
    ...r,
    layers: layers as Record<
      string,
      {
        layer: string;
        ok: boolean;
        status: string;
        summary: string;
        violations: { rule: string; paths: string[]; message: string }[];
        details?: Record<string, any>;
      }
    >,
  };
}
