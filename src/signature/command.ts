// `patchwarden signatures REPORT.xml...`: one row per failing or erroring
// test case with its signature. Exit 0 when every report was read, whatever
// they hold; 2 when one cannot be read.
import path from 'node:path';
import { parse, type Common } from '../common/args.js';
import { emit } from '../common/output.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { showPath } from '../common/text.js';
import { defaults, type Config } from '../config/schema.js';
import { configBool, openRepo } from '../git/repo.js';
import { readReport } from '../junit/read.js';
import { signCase, signOptions, type SignOptions } from './sign.js';
import { checkoutSource, type SourceReader } from './source.js';
import type { Signed } from './types.js';

export const help = `usage: patchwarden signatures REPORT... [--format text|json] [--config PATH] [-C DIR]

Reads JUnit XML reports or TAP 13/14 streams (a reporter's file) and prints one row per failing or erroring test case
(and per flaky one: Surefire's flakyFailure/flakyError, marked flaky)
with its failure signature: exception type, assertion kind, project frames
(signature.project, by default the src zone) and normalized message, hashed.
A row marked "ineligible" names nothing that tells its defect from another
(no project frame, a predicate of numbers and assertion words only, and no
asserting expression in the test's source): it can never be frozen.

Inside a repository the config is read from its working tree and the
asserting expression from its files; elsewhere the defaults apply (or
--config PATH) and no source is read.

exit codes: 0 the reports were read; 2 a report could not be read.`;

export interface Row extends Omit<Signed, 'files'> {
  /** The report the case came from, as given. */
  file: string;
}

export async function run(args: string[]): Promise<number> {
  const { common, positionals } = parse(args, {});
  if (!positionals.length) throw new UsageError('name at least one report (JUnit XML or TAP)');
  // The reports are read while git answers for the config: neither waits on the other.
  const [opts, ...reports] = await Promise.all([
    options(common),
    ...positionals.map((file) => readReport(path.resolve(process.cwd(), file), { failingOnly: true })),
  ]);
  const rows: Row[] = [];
  for (const [i, report] of reports.entries()) {
    const file = positionals[i];
    for (const tc of report.cases) {
      const signed = signCase(tc, opts);
      // The frames' files only serve freeze.forbid; the row shows the function names.
      if (signed) {
        const { files: _files, ...shown } = signed;
        rows.push({ ...shown, file });
      }
    }
  }
  return emit(common.format, { ok: true, json: { failures: rows }, text: table(rows) });
}

/** The config of the repository we are in, or the defaults outside one. */
async function options(common: Common): Promise<SignOptions> {
  let config: Config;
  let ignoreCase = false;
  let source: SourceReader | undefined;
  try {
    const repo = await openRepo(common.dir);
    config = await (await configLoader()).loadConfig(repo, common.config);
    ignoreCase = await configBool(repo, 'core.ignorecase');
    // A bare repository has no checkout: signed without source, never refused.
    if (repo.root) source = await checkoutSource(repo.root);
  } catch (err) {
    if (!(err instanceof CannotJudge) || !/^not a git repository/.test(err.message)) throw err;
    config = common.config ? await configFile(common.config) : defaults();
  }
  return signOptions(config, ignoreCase, source);
}

async function configFile(file: string): Promise<Config> {
  return (await configLoader()).loadConfigIn(process.cwd(), file);
}

/** The config reader (and its YAML parser) loads only where a config is read: reports signed outside a repository need neither. */
const configLoader = () => import('../config/load.js');

function table(rows: Row[]): string[] {
  if (!rows.length) return ['patchwarden: no failing or erroring test cases'];
  const lines = rows.map((r) => [
    `${r.sig}${r.eligible ? '' : ' (ineligible)'}${r.flaky ? ' (flaky)' : ''}`,
    r.exc || '-',
    r.kind,
    r.frames.length ? r.frames.join(' < ') : '-',
    `${showPath(r.name)}  [${showPath(r.file)}]`,
  ]);
  const head = ['signature', 'exception', 'kind', 'frames', 'test (report)'];
  const widths = head.map((h, i) => Math.min(48, Math.max(h.length, ...lines.map((l) => l[i].length))));
  const fmt = (cols: string[]) =>
    cols
      .map((c, i) => (i === cols.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const ineligible = rows.filter((r) => !r.eligible).length;
  const flaky = rows.filter((r) => r.flaky).length;
  return [
    fmt(head),
    ...lines.map(fmt),
    '',
    `${rows.length} failing or erroring case(s)${flaky ? `, ${flaky} of them flaky` : ''}${ineligible ? `, ${ineligible} ineligible` : ''}`,
  ];
}
