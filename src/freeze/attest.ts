// Where an evidence file came from. Its digest proves only that it is the
// file the row was added from; under `freeze.attestation: github` the gate
// asks GitHub's CLI whether the file carries an artifact attestation signed
// by the configured workflow (`gh attestation verify --signer-workflow`),
// and a row whose file has none freezes nothing. Fails closed: no gh, no
// network, no token, each refuses the row, naming what to install or set.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from '../config/schema.js';

/** gh asks GitHub's API; a stalled network must not stall the gate. */
const TIMEOUT_MS = 120_000;

/** One verification per file per process: the ledger and suite layers read the same evidence. */
const verdicts = new Map<string, Promise<string | null>>();

/** Why the evidence file (`bytes`, kept at `file`, named by `digest`) has no attestation the config accepts; null when it has. */
export function attestationProblem(
  config: Config,
  bytes: Buffer,
  file: string,
  digest: string,
): Promise<string | null> {
  const workflow = config.freeze.signer_workflow!;
  const key = `${digest} ${workflow}`;
  let verdict = verdicts.get(key);
  if (!verdict) verdicts.set(key, (verdict = verify(workflow, bytes, file)));
  return verdict;
}

async function verify(workflow: string, bytes: Buffer, file: string): Promise<string | null> {
  const [owner, repo] = workflow.split('/.github/')[0].split('/').slice(-2);
  const dir = await mkdtemp(path.join(tmpdir(), 'patchwarden-attest-'));
  try {
    // gh hashes the file it is given: the committed bytes, under the evidence file's own name.
    const copy = path.join(dir, path.basename(file));
    await writeFile(copy, bytes);
    const args = ['attestation', 'verify', copy, '--repo', `${owner}/${repo}`, '--signer-workflow', workflow];
    const r = await run('gh', args);
    const shown = `gh attestation verify ${file} --repo ${owner}/${repo} --signer-workflow ${workflow}`;
    if (r.missing)
      return `freeze.attestation: github verifies each evidence file with the GitHub CLI, which is not installed here: install gh 2.49 or later (https://cli.github.com; GitHub's hosted runners have it) and give it a token (GH_TOKEN), then run the gate again`;
    if (r.code === 0) return null;
    const said = r.output.trim().split('\n').filter(Boolean).slice(-3).join(' / ') || `exit ${r.code}`;
    const why = /lookup|dial tcp|no such host|connection|network|timed out|timeout/i.test(said)
      ? 'gh could not reach GitHub, so the attestation is unverified'
      : /GH_TOKEN|gh auth login|authenticat|401/i.test(said)
        ? 'gh has no token (set GH_TOKEN; in Actions, GH_TOKEN: ${{ github.token }})'
        : `no valid attestation signed by ${workflow}`;
    return `its evidence file ${file}: ${why}; \`${shown}\` says: ${said}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[]): Promise<{ missing: boolean; code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    child.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ missing: err.code === 'ENOENT', code: null, output: err.message }),
    );
    child.on('close', (code, signal) =>
      resolve({
        missing: false,
        code,
        output: signal ? `${output}\n(timed out after ${TIMEOUT_MS / 1000} s)` : output,
      }),
    );
  });
}
