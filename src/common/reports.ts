// The report files CI systems read, over a verdict's rows (the gate's
// layers): SARIF 2.1.0 for code scanning, JUnit XML for test-report views,
// and GitLab Code Quality for merge requests. Loaded only when one is asked
// for. A refused path is one finding; a layer that could not judge is one
// finding too, so that no report reads as clean while the verdict blocks.
import { createHash } from 'node:crypto';
import type { REPORT_FORMATS } from './args.js';
import { violationLines } from './render.js';
import { VERSION } from './version.js';
import type { Judged, Violation } from './verdict.js';

export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportOptions {
  /** What was judged, e.g. `patchwarden gate`: the JUnit suite's name. */
  title: string;
  /** Where a finding of no path sits in a format that needs a file: the repository's config file. */
  rulesFile: string;
}

/** The report, as the text of the file. */
export function report(format: ReportFormat, rows: Judged[], o: ReportOptions): string {
  if (format === 'sarif') return JSON.stringify(sarif(rows), null, 2) + '\n';
  if (format === 'junit') return junit(rows, o.title);
  return JSON.stringify(codeQuality(rows, o.rulesFile), null, 2) + '\n';
}

/** A finding: the violation and one of its paths (none for a violation of no path). */
interface Finding {
  layer: string;
  rule: string;
  /** The whole message: the commit, what refused and the fix. */
  text: string;
  /** What refused alone: the same for the same finding on another commit id (a rebase), so it identifies the finding. */
  what: string;
  path?: string;
}

function findings(rows: Judged[]): Finding[] {
  return rows.flatMap((r) => [
    ...r.violations.flatMap((v) => {
      const f = { layer: r.layer, rule: v.rule, text: oneLine(v), what: v.message };
      return v.paths.length ? v.paths.map((path) => ({ ...f, path })) : [f];
    }),
    // A layer that could not judge blocks like a refusal, with no violation of its own.
    ...(r.status === 'error'
      ? [
          {
            layer: r.layer,
            rule: `${r.layer}.error`,
            text: `${r.layer} could not judge: ${r.summary}`,
            what: r.summary,
          },
        ]
      : []),
  ]);
}

/** The violation as one message: what refused and the fix, without the per-path lines (each finding has its path). */
function oneLine(v: Violation): string {
  return [v.commit ? `commit ${v.commit.slice(0, 12)}: ${v.message}` : v.message, v.fix && `fix: ${v.fix}`]
    .filter(Boolean)
    .join('\n');
}

/** A repository path as a relative URI reference: each segment percent-encoded. */
function pathUri(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

function sarif(rows: Judged[]): object {
  const all = findings(rows);
  const rules = [...new Map(all.map((f) => [f.rule, f])).values()];
  const unjudged = rows.filter((r) => r.status === 'error');
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'patchwarden',
            version: VERSION,
            rules: rules.map((f) => ({
              id: f.rule,
              shortDescription: { text: `patchwarden ${f.layer}: ${f.rule}` },
              properties: { layer: f.layer },
            })),
          },
        },
        invocations: [
          {
            executionSuccessful: unjudged.length === 0,
            toolExecutionNotifications: unjudged.map((r) => ({
              level: 'error',
              message: { text: `${r.layer}: ${r.summary}` },
            })),
          },
        ],
        results: all.map((f) => ({
          ruleId: f.rule,
          ruleIndex: rules.findIndex((r) => r.rule === f.rule),
          level: 'error',
          message: { text: f.text },
          ...(f.path !== undefined && {
            locations: [{ physicalLocation: { artifactLocation: { uri: pathUri(f.path), uriBaseId: '%SRCROOT%' } } }],
          }),
          properties: { layer: f.layer },
        })),
      },
    ],
  };
}

/** XML 1.0 text: the five special characters escaped, characters XML cannot hold shown as U+FFFD. */
function xml(s: string): string {
  return s
    .replace(
      /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '\ufffd',
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** One test case per row: refused is a failure, could not judge an error, skipped skipped. */
function junit(rows: Judged[], title: string): string {
  const count = (s: Judged['status']) => rows.filter((r) => r.status === s).length;
  const totals = `tests="${rows.length}" failures="${count('refused')}" errors="${count('error')}"`;
  const cases = rows.map((r) => {
    const open = `    <testcase classname="patchwarden" name="${xml(r.layer)}"`;
    if (r.status === 'pass') return `${open}/>`;
    if (r.status === 'skipped') return `${open}>\n      <skipped message="${xml(r.summary)}"/>\n    </testcase>`;
    const element = r.status === 'refused' ? 'failure' : 'error';
    const body = r.violations.flatMap((v) => violationLines(v, 'nested')).join('\n');
    return `${open}>\n      <${element} type="${r.status}" message="${xml(r.summary)}">${xml(body)}</${element}>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(title)}" ${totals}>`,
    `  <testsuite name="${xml(title)}" ${totals} skipped="${count('skipped')}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * GitLab's Code Quality issues. Findings are about whole files, so each sits
 * on line 1; one with no path (a deleted ref, a layer that could not judge)
 * sits on the config whose rules were applied.
 */
function codeQuality(rows: Judged[], rulesFile: string): object[] {
  return findings(rows).map((f) => {
    const path = f.path ?? rulesFile;
    return {
      description: `${f.layer}: ${f.text}`,
      check_name: `patchwarden.${f.rule}`,
      fingerprint: createHash('sha256').update(`${f.rule}\0${path}\0${f.what}`).digest('hex').slice(0, 32),
      severity: 'blocker',
      location: { path, lines: { begin: 1 } },
    };
  });
}
