// One guarded property run: the guards' sources written into a private
// folder outside the run's tree, their configuration (the tree, which of its
// code files are the base's spec and harness, the report, where the run may
// write), the channel, and the report's path beside them.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_KEPT, openChannel } from './channel.js';
import { failingCase, guardFailures, guardProblems } from './records.js';

/** The guards' own sources (sources.ts: bundled as text). */
export interface GuardSources {
  sitecustomize: string;
  pythonGuard: string;
  pytestPlugin: string;
  preload: string;
}

/** The modules whose import or frames belong to the test framework (Python). */
const PY_FRAMEWORK = [
  'pytest',
  '_pytest',
  'pluggy',
  'unittest',
  'doctest',
  'hypothesis',
  '_hypothesis_pytestplugin',
  'xdist',
  'execnet',
  'nose',
];

/** How long the channel may take to reach its end once the process group is gone. */
const DRAIN_MS = 2000;

export interface GuardSetup {
  /** The tree the command runs in (a real path). */
  tree: string;
  /** The repository's working tree (a real path), whose paths on Python's import path mean the same paths in `tree`. */
  main: string | null;
  /** Code files of the tree that are the base's spec and harness (outside the src zone), relative. */
  trusted: string[];
  /** Folders the run may write to (real paths: its temporary root, the tree). */
  writable: string[];
  /** The sealed runtimes' folder (sealed/env.ts), whose code counts as the harness's; null when unsealed. */
  runtime?: string | null;
}

export interface GuardSession {
  /** The configuration file the guards read (PATCHWARDEN_GUARD). */
  config: string;
  /** The folder to put first on PYTHONPATH. */
  pythonPath: string;
  /** The file to preload in every Node process. */
  nodePreload: string;
  /** Where the command writes its report. */
  junit: string;
  /** The FIFO the guards write their records to. */
  channel: string;
  /**
   * After the command's process group has ended: why the guards refuse the
   * run (empty: it stands), and the tests they saw fail, which the report must
   * show failed.
   */
  finish(): Promise<{ problems: string[]; failures: string[] }>;
  dispose(): void;
}

/** `onFailing`, where given, hears each case a `failing` record names as the run goes (records.ts). */
export function openGuard(setup: GuardSetup, sources: GuardSources, onFailing?: (name: string) => void): GuardSession {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-guard-')));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    const pythonPath = path.join(dir, 'python');
    const nodePreload = path.join(dir, 'node', 'preload.cjs');
    mkdirSync(pythonPath);
    mkdirSync(path.dirname(nodePreload));
    writeFileSync(path.join(pythonPath, 'sitecustomize.py'), sources.sitecustomize);
    writeFileSync(path.join(pythonPath, 'patchwarden_guard.py'), sources.pythonGuard);
    writeFileSync(path.join(pythonPath, '_patchwarden_pytest.py'), sources.pytestPlugin);
    writeFileSync(nodePreload, sources.preload);
    const channel = openChannel(
      path.join(dir, 'channel'),
      onFailing &&
        ((line) => {
          const name = failingCase(line);
          if (name !== null) onFailing(name);
        }),
    );
    const junit = path.join(dir, 'report', 'report.xml');
    mkdirSync(path.dirname(junit));
    const config = path.join(dir, 'guard.json');
    writeFileSync(
      config,
      JSON.stringify({
        channel: channel.path,
        tree: setup.tree,
        main: setup.main,
        trusted: setup.trusted,
        writable: setup.writable,
        runtime: setup.runtime ?? null,
        report: junit,
        framework: PY_FRAMEWORK,
      }),
    );
    return {
      config,
      pythonPath,
      nodePreload,
      junit,
      channel: channel.path,
      dispose: () => {
        channel.close();
        dispose();
      },
      finish: async () => {
        const { lines, ended, overflowed } = await channel.drain(DRAIN_MS);
        const flood = overflowed
          ? [
              `runtime guard: the guard's channel carried more than its records could ever take (${MAX_KEPT >> 20} MB), so what came past that went unread: something else wrote to it`,
            ]
          : [];
        return { problems: [...flood, ...guardProblems(lines, ended)], failures: guardFailures(lines) };
      },
    };
  } catch (err) {
    dispose();
    throw err;
  }
}
