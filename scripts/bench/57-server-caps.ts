// What GitHub Enterprise Server's default caps (hooks/pre-receive-cost.ts)
// cost the pre-receive hook alone, each against GHES's 5-second limit: a push
// of as many bytes of production code as `scan_bytes`, of as many commits as
// `commits`, of as many owner-signed oracle commits as `signatures` (the
// ssh-keygen processes the hook starts counted); and the verification of
// 1,000 signatures in-process (owners/commit-signatures.ts) against git's
// own (`%G?`, two ssh-keygen processes a signature), as the owners rule ran it before.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { openRepo } from '../../src/git/repo.js';
import { GHES_CAPS } from '../../src/hooks/pre-receive-cost.js';
import { verifySignatures } from '../../src/owners/commit-signatures.js';
import { baseImport } from '../../test/prereceive/pushes.js';
import { CLI, benchGitEnv, median, type Row } from './lib.js';

const RUNS = Number(process.env.PATCHWARDEN_BENCH_RUNS ?? 3);
const GHES = { ms: 5000, name: "GitHub Enterprise Server's limit on a pre-receive hook" };
/** Signed oracle commits made: GHES's cap, and at least the 1,000 the verification row times. */
const SIGNED = Math.max(1000, GHES_CAPS.signatures!);
const GNU_TIME = '/usr/bin/time';
const COMMITTER = (t: number) => `committer Bench <owner@example.com> ${1700000000 + t} +0000`;
const file = (p: string, text: string) => `M 100644 inline ${p}\ndata ${Buffer.byteLength(text)}\n${text}`;

/** `count` commits on `branch` from the base, the `c`th changing what `files(c)` gives. */
function commitsImport(branch: string, count: number, files: (c: number) => [string, string][]): string {
  const lines: string[] = [];
  for (let c = 1; c <= count; c++) {
    lines.push(`commit refs/heads/${branch}`, COMMITTER(c), `data ${String(c).length + 7}`, `change ${c}`);
    if (c === 1) lines.push('from :1');
    for (const [p, text] of files(c)) lines.push(file(p, text));
    lines.push('');
  }
  return lines.join('\n');
}

/** Multi-line code, `bytes` long, nothing any rule refuses. */
const code = (bytes: number, k: number) =>
  `export const data${k} = [\n${'  { id: 1, name: "a", tags: ["x", "y"] },\n'.repeat(Math.ceil(bytes / 42))}];\n`;

export default async function serverCaps(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-caps-'));
  const env = benchGitEnv({ GIT_COMMITTER_EMAIL: 'owner@example.com', GIT_AUTHOR_EMAIL: 'owner@example.com' });
  const git = (cwd: string, args: string[], input?: string) =>
    execFileSync('git', args, { cwd, env, input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'inherit'] })
      .toString()
      .trim();
  try {
    // The owner's key, and a counter of the ssh-keygen processes git starts.
    const key = path.join(dir, 'owner');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'owner', '-f', key]);
    const pub = readFileSync(`${key}.pub`, 'utf8').trim();
    const count = path.join(dir, 'ssh-keygen.count');
    const keygen = path.join(dir, 'ssh-keygen');
    const real = execFileSync('sh', ['-c', 'command -v ssh-keygen']).toString().trim();
    writeFileSync(keygen, `#!/bin/sh\necho >> "${count}"\nexec "${real}" "$@"\n`, { mode: 0o755 });
    const keygens = () => (existsSync(count) ? readFileSync(count, 'utf8').split('\n').length - 1 : 0);
    const work = path.join(dir, 'work');
    git(dir, ['init', '-q', '-b', 'main', work]);
    const config = 'version: 1\nowners:\n  signers: .patchwarden/allowed_signers\n';
    const base = baseImport(config, { '.patchwarden/allowed_signers': `owner@example.com ${pub}\n` });
    const scanFiles = 40;
    git(
      work,
      ['fast-import', '--quiet'],
      [
        base,
        commitsImport('scan', 1, () =>
          Array.from({ length: scanFiles }, (_, k) => [
            `src/gen/g${k}.ts`,
            code(GHES_CAPS.scan_bytes! / scanFiles - 100, k),
          ]),
        ),
        commitsImport('commits', GHES_CAPS.commits!, (c) => [[`src/m${c % 50}.ts`, `export const v = ${c};\n`]]),
        commitsImport('unsigned', SIGNED, (c) => [[`spec/s${c % 20}.yaml`, `version: 1\n# ${c}\n`]]),
      ].join(''),
    );
    // The oracle commits again, each signed by the owner (what fast-import cannot write).
    let parent = git(work, ['rev-parse', 'main']);
    const signedTips: string[] = [];
    for (const c of git(work, ['rev-list', '--reverse', 'main..unsigned']).split('\n')) {
      const tree = git(work, ['rev-parse', `${c}^{tree}`]);
      parent = git(work, [
        '-c',
        'gpg.format=ssh',
        '-c',
        `user.signingkey=${key}`,
        'commit-tree',
        tree,
        '-p',
        parent,
        '-S',
        '-m',
        'spec',
      ]);
      signedTips.push(parent);
    }
    git(work, ['update-ref', 'refs/heads/capped', signedTips[GHES_CAPS.signatures! - 1]]);
    const bare = path.join(dir, 'server.git');
    git(dir, ['init', '-q', '--bare', '-b', 'main', bare]);
    git(work, ['push', '-q', bare, 'main', 'scan', 'commits', 'capped']);
    // The hook alone on one branch as if it were being pushed: its objects are there, no branch but main holds them.
    const branches = ['scan', 'commits', 'capped'];
    /** Each branch's hook CPU time in ms, git's processes included, where GNU time is there to tell. */
    const cpu = new Map(branches.map((b) => [b, [] as number[]]));
    /** The ssh-keygen processes each branch's last hook run started. */
    const started = new Map<string, number>();
    const cpuFile = path.join(dir, 'cpu');
    const tips = new Map(branches.map((b) => [b, git(work, ['rev-parse', b])]));
    const hookAlone = (branch: string): number => {
      for (const b of branches) git(bare, ['update-ref', '-d', `refs/heads/${b}`]);
      const t = process.hrtime.bigint();
      const measured = existsSync(GNU_TIME);
      const cmd = measured ? [GNU_TIME, '-f', '%U %S', '-o', cpuFile, process.execPath] : [process.execPath];
      rmSync(count, { force: true });
      const r = spawnSync(cmd[0], [...cmd.slice(1), CLI, 'pre-receive'], {
        cwd: bare,
        env: { ...env, PATH: `${dir}:${env.PATH}` },
        input: `${'0'.repeat(40)} ${tips.get(branch)} refs/heads/${branch}\n`,
        encoding: 'utf8',
      });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      started.set(branch, keygens());
      for (const b of branches) git(bare, ['update-ref', `refs/heads/${b}`, tips.get(b)!]);
      if (r.status !== 0) throw new Error(`bench hook failed on ${branch}: ${r.stdout}${r.stderr}`);
      // A hook that saw fewer commits than the branch brings measured something else.
      const judged = Number(/(\d+) new commits?\)/.exec(r.stdout)?.[1]);
      if (judged !== Number(git(work, ['rev-list', '--count', `main..${branch}`])))
        throw new Error(`bench hook on ${branch} judged ${judged} commits: ${r.stdout}`);
      if (measured) {
        const [user, sys] = readFileSync(cpuFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
        cpu.get(branch)!.push((user + sys) * 1000);
      }
      return ms;
    };
    const times = (branch: string) => {
      hookAlone(branch);
      return Array.from({ length: RUNS }, () => hookAlone(branch));
    };
    const signers = path.join(dir, 'allowed_signers');
    writeFileSync(signers, `owner@example.com ${pub}\n`);
    /** git's own check of the same signatures, as the owners rule ran it before. */
    const gitLog = () => {
      rmSync(count, { force: true });
      const t = process.hrtime.bigint();
      execFileSync(
        'git',
        [
          '-c',
          `gpg.ssh.allowedSignersFile=${signers}`,
          '-c',
          `gpg.ssh.program=${keygen}`,
          'log',
          '--no-walk=unsorted',
          '--stdin',
          '--format=%H %G? %GS',
        ],
        { cwd: work, env, input: `${signedTips.join('\n')}\n`, stdio: ['pipe', 'ignore', 'inherit'] },
      );
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    const repo = await openRepo(work);
    const signersText = readFileSync(signers);
    /** The in-process check; a comment line per run makes each a new signers file, so nothing comes from its cache. */
    const inProcess = async (run: number) => {
      rmSync(count, { force: true });
      const t = process.hrtime.bigint();
      const got = await verifySignatures(repo, signedTips, Buffer.concat([Buffer.from(`# run ${run}\n`), signersText]));
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      const good = [...got.values()].filter((v) => v.signature === 'G').length;
      if (good !== SIGNED) throw new Error(`bench: ${good} of ${SIGNED} signatures good in-process`);
      return ms;
    };
    const ours: number[] = [];
    const viaGit: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      ours.push(await inProcess(r));
      viaGit.push(gitLog());
    }
    const spawned = keygens();
    await inProcess(RUNS);
    const spawnedOurs = keygens();
    const load = (branch: string) => [
      `load average here ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
      cpu.get(branch)!.length
        ? `CPU time (git's and ssh-keygen's included): ${median(cpu.get(branch)!).toFixed(0)} ms, what an idle core would take`
        : `${GNU_TIME} (GNU time) is missing: no CPU time measured`,
    ];
    const capRow = (name: string, branch: string, what: string): Row => ({
      name: `pre-receive hook alone at GHES's default cap: ${name}`,
      ours: times(branch),
      baseline: GHES.ms,
      oursName: `patchwarden pre-receive < REF-LINE  # ${what}`,
      baselineName: GHES.name,
      target: 1,
      note: load(branch),
    });
    return [
      capRow(
        `scan_bytes ${GHES_CAPS.scan_bytes! / 1e6} MB`,
        'scan',
        `${scanFiles} files of multi-line TypeScript in one commit`,
      ),
      capRow(`commits ${GHES_CAPS.commits!.toLocaleString('en')}`, 'commits', 'each commit one production file'),
      {
        ...capRow(
          `signatures ${GHES_CAPS.signatures}`,
          'capped',
          'owner-signed commits of the spec, owners.signers set',
        ),
        note: [
          ...load('capped'),
          `the hook started ${started.get('capped')} ssh-keygen processes (at most one a push)`,
        ],
      },
      {
        name: `verification of ${SIGNED.toLocaleString('en')} SSH signatures: in-process against git's own, which the owners rule ran before`,
        ours,
        baseline: viaGit,
        oursName: `verifySignatures (owners/commit-signatures.ts)  # ${(median(ours) / SIGNED).toFixed(2)} ms a signature, ${spawnedOurs} ssh-keygen`,
        baselineName: `git -c gpg.ssh.allowedSignersFile=F log --no-walk=unsorted --stdin --format='%H %G? %GS'  # ${(median(viaGit) / SIGNED).toFixed(1)} ms a signature, ${spawned} ssh-keygen`,
        ceiling: 5000,
        note: [`target: under 5 s on ${cpus().length} cores, one cat-file process and no ssh-keygen`],
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
