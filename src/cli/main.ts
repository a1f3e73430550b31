// The `patchwarden` entry point. Each command lives in its concern's folder
// and is loaded only when asked for: hooks start on every commit.
import { resolve } from 'node:path';
import { isCannotJudge, UsageError } from '../common/errors.js';
import { VERSION } from '../common/version.js';
import { hashesFilesOnDisk } from '../fixtures/on-disk.js';
import { takeSeedKey } from '../runner/seed.js';

export interface Command {
  /** The text `--help` prints. */
  help: string;
  /** Runs with the arguments after the command name; returns the exit code. */
  run(args: string[]): Promise<number>;
}

type Loader = () => Promise<Command>;

interface Entry {
  summary: string;
  load: Loader;
  /** Work to start before the command loads, given its arguments. */
  early?: (args: string[]) => Promise<void>;
}

const commands: Record<string, Entry> = {
  init: { summary: 'write a starter config and install the hooks', load: () => import('../adopt/init.js') },
  uninstall: { summary: 'remove the hooks and entries init added', load: () => import('../adopt/uninstall.js') },
  doctor: { summary: 'say whether hooks and oracle files are in order', load: () => import('../adopt/doctor.js') },
  check: { summary: 'the mixing rule on the index, a commit or a range', load: () => import('../judge/check.js') },
  'pre-commit': { summary: 'hook entry point: git pre-commit', load: () => import('../hooks/pre-commit.js') },
  'pre-merge-commit': {
    summary: 'hook entry point: git pre-merge-commit',
    load: () => import('../hooks/pre-commit.js').then((m) => m.mergeCommit),
  },
  'commit-msg': {
    summary: 'hook entry point: git commit-msg FILE',
    load: () => import('../hooks/pre-commit.js').then((m) => m.commitMsg),
  },
  'pre-push': { summary: 'hook entry point: git pre-push REMOTE URL', load: () => import('../hooks/pre-push.js') },
  'pre-receive': {
    summary: 'hook entry point: server-side pre-receive',
    load: () => import('../hooks/pre-receive.js'),
  },
  signatures: { summary: 'failure signatures of JUnit reports', load: () => import('../signature/command.js') },
  freeze: {
    summary: 'the freeze ledger: init, check, list, add, extend, prune, migrate, apply',
    load: () => import('../freeze/command.js'),
  },
  fixtures: {
    summary: 'the fixture lock: lock, verify, add',
    load: () => import('../fixtures/command.js'),
    early: async (args) => {
      if (hashesFilesOnDisk(args)) (await import('../fixtures/file-digests.js')).warmUp();
    },
  },
  'revert-check': {
    summary: 'properties must fail with the production diff reverted',
    load: () => import('../refactors/command.js'),
  },
  recover: {
    summary: 'restore the tree after a killed in-place revert check',
    load: () => import('../properties/recover.js'),
  },
  replay: { summary: 'run a command N times and classify each case', load: () => import('../replay/command.js') },
  tamper: { summary: 'refuse production code that games the test run', load: () => import('../tamper/command.js') },
  gate: { summary: 'every layer, one decision table, one exit code', load: () => import('../gate/command.js') },
  scratch: {
    summary: 'run a branch on a scratch runner; propose its oracle files and rows',
    load: () => import('../scratch/command.js'),
  },
  promote: { summary: "commit a scratch proposal as an owner's commit", load: () => import('../scratch/promote.js') },
};

// Two spaces after the longest name, so every name stands apart from its summary.
const width = Math.max(...Object.keys(commands).map((name) => name.length)) + 2;
const usage = `usage: patchwarden <command> [options]

commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`)
  .join('\n')}

every command takes --format text|json, --config PATH, -C DIR and --help.
exit codes: 0 passes, 1 refused, 2 could not judge.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage + '\n');
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`patchwarden ${VERSION}\n`);
    return 0;
  }
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry) throw new UsageError(`unknown command ${JSON.stringify(name)}; run patchwarden --help`);
  await entry.early?.(args);
  const command = await entry.load();
  // Words after `--` belong to a command patchwarden runs (replay), not to patchwarden.
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(command.help.trimEnd() + '\n');
    return 0;
  }
  return command.run(args);
}

function report(err: unknown): number {
  const debug = process.env.PATCHWARDEN_DEBUG === '1';
  const own = process.argv.includes('--') ? process.argv.slice(0, process.argv.indexOf('--')) : process.argv;
  const json = own.includes('--format=json') || own.some((a, i) => a === '--format' && own[i + 1] === 'json');
  let message: string;
  if (isCannotJudge(err)) {
    message = err.describe();
    if (err.name === 'UsageError') message += ' (see --help)';
  } else {
    message = `internal error: ${(err as Error)?.message ?? String(err)}`;
  }
  if (json) process.stdout.write(JSON.stringify({ ok: false, error: message }) + '\n');
  process.stderr.write(`patchwarden: ${message}\n`);
  if (debug && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  return 2;
}

// A reader that stops early (`| head`) closes stdout: the rest of the output
// is dropped and the command still ends with its verdict's exit code.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});
// The gate's seed key goes before anything starts a child, so none inherits it.
takeSeedKey();
// Git may hand a hook a relative index path; pin it before any cwd change.
if (process.env.GIT_INDEX_FILE) process.env.GIT_INDEX_FILE = resolve(process.env.GIT_INDEX_FILE);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.exitCode = report(err);
  },
);
