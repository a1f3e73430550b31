// gate --format sarif, junit and codequality: each report checked against
// its published schema (test/schemas/README.md names the sources), with a
// refused layer, a layer that could not judge and paths no URI or XML holds
// as they are.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import draft04 from 'ajv-draft-04';
import formats from 'ajv-formats';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateXML } from 'xmllint-wasm';
import { cleanup, PROJECT } from '../helpers/repo.js';
import { sample } from './sample.js';

test.after.each(cleanup);

const schema = (file: string) => JSON.parse(readFileSync(path.join(PROJECT, 'test/schemas', file), 'utf8'));
// CommonJS modules: their default export is the module, which holds it again as .default.
const sarifSchema = formats.default(new draft04.default({ strict: false })).compile(schema('sarif-schema-2.1.0.json'));
const codeQualitySchema = formats.default(new Ajv({ strict: false })).compile(schema('gitlab-codequality.schema.json'));
/** A validator's answer as a plain boolean (a type guard inside assert.ok would narrow the data to unknown). */
const valid = (check: (data: unknown) => boolean, data: unknown): boolean => check(data);
const JUNIT_XSD = readFileSync(path.join(PROJECT, 'test/schemas/junit-10.xsd'), 'utf8');

const ODD = 'spec/odd #1\u00e9 %20.yaml';

/** A topic branch that mixes production code with two oracle files, one with an odd name, and a registry nothing checks (an error layer). */
function refusedWithError() {
  const repo = sample('version: 1\n', { 'spec/invariants.yaml': 'version: 1\ninvariants: []\n' });
  repo.commit({ 'src/app.js': 'export const a = 2;\n', [ODD]: 'x: <&>\n', 'spec/b.yaml': 'b: 1\n' }, 'mixed');
  return repo;
}

function gateReport(format: string) {
  const repo = refusedWithError();
  const r = repo.pw(['gate', '--base', 'main', '--format', format]);
  assert.is(r.code, 1, r.stderr);
  return r.stdout;
}

test('sarif: valid SARIF 2.1.0; one result per refused path with its rule id, message and location; the unjudged layer too', () => {
  const log = JSON.parse(gateReport('sarif'));
  assert.ok(valid(sarifSchema, log), JSON.stringify(sarifSchema.errors, null, 1));
  const results = log.runs[0].results as any[];
  const mix = results.filter((r) => r.ruleId === 'mix');
  assert.equal(
    mix.map((r) => decodeURIComponent(r.locations[0].physicalLocation.artifactLocation.uri)).sort(),
    [ODD, 'spec/b.yaml', 'src/app.js'].sort(),
  );
  assert.ok(
    mix.every(
      (r) =>
        r.level === 'error' &&
        /this commit changes production code/.test(r.message.text) &&
        /fix: split the commit/.test(r.message.text),
    ),
  );
  assert.ok(
    mix.some((r) => r.locations[0].physicalLocation.artifactLocation.uri === 'spec/odd%20%231%C3%A9%20%2520.yaml'),
  );
  assert.ok(
    results.some((r) => r.ruleId === 'properties.error' && !r.locations),
    'the layer that could not judge is a result',
  );
  assert.is(log.runs[0].invocations[0].executionSuccessful, false);
  assert.equal(
    log.runs[0].tool.driver.rules.map((r: { id: string }) => r.id).sort(),
    [...new Set(results.map((r) => r.ruleId))].sort(),
  );
});

test('junit: valid against the JUnit XSD; a test case per layer, refused a failure, unjudged an error, skipped skipped', async () => {
  const xml = gateReport('junit');
  const v = await validateXML({
    xml: [{ fileName: 'gate.xml', contents: xml }],
    schema: [{ fileName: 'junit-10.xsd', contents: JUNIT_XSD }],
  });
  assert.ok(v.valid, v.rawOutput);
  assert.match(xml, /<testcase classname="patchwarden" name="mixing">\n +<failure type="refused" message="[^"]+">/);
  assert.match(xml, /<testcase classname="patchwarden" name="properties">\n +<error type="error"/);
  assert.match(xml, /<testcase classname="patchwarden" name="owners">\n +<skipped message=/);
  assert.match(xml, /<testcase classname="patchwarden" name="ledger"\/>/);
  assert.match(xml, /failures="1" errors="2"/);
});

test('codequality: valid GitLab Code Quality; one issue per refused path, stable fingerprints, unplaced findings on the config', () => {
  const issues = JSON.parse(gateReport('codequality')) as any[];
  assert.ok(valid(codeQualitySchema, issues), JSON.stringify(codeQualitySchema.errors, null, 1));
  assert.equal(
    issues
      .filter((i) => i.check_name === 'patchwarden.mix')
      .map((i) => i.location.path)
      .sort(),
    [ODD, 'spec/b.yaml', 'src/app.js'].sort(),
  );
  assert.ok(
    issues.some((i) => i.check_name === 'patchwarden.properties.error' && i.location.path === '.patchwarden.yml'),
  );
  assert.is(new Set(issues.map((i) => i.fingerprint)).size, issues.length, 'fingerprints are unique');
  assert.equal(
    JSON.parse(gateReport('codequality')).map((i: any) => i.fingerprint),
    issues.map((i) => i.fingerprint),
    'and the same for the same findings on other commits',
  );
});

test('a passing gate gives empty reports that are still valid', async () => {
  const repo = sample();
  repo.commit({ 'src/app.js': 'export const a = 2;\n' }, 'code');
  const sarif = repo.pw(['gate', '--base', 'main', '--format', 'sarif']);
  assert.is(sarif.code, 0, sarif.stderr);
  assert.ok(valid(sarifSchema, JSON.parse(sarif.stdout)));
  assert.equal(JSON.parse(sarif.stdout).runs[0].results, []);
  const cq = repo.pw(['gate', '--base', 'main', '--format', 'codequality']);
  assert.equal(JSON.parse(cq.stdout), []);
  const junit = repo.pw(['gate', '--base', 'main', '--format', 'junit']);
  const v = await validateXML({
    xml: [{ fileName: 'gate.xml', contents: junit.stdout }],
    schema: [{ fileName: 'junit-10.xsd', contents: JUNIT_XSD }],
  });
  assert.ok(v.valid, v.rawOutput);
});

test('the schema checks can fail: a report missing what its format requires is refused', async () => {
  assert.not.ok(
    valid(sarifSchema, { version: '2.1.0', runs: [{ tool: { driver: {} }, results: [{ ruleId: 'mix' }] }] }),
  );
  assert.not.ok(
    valid(codeQualitySchema, [
      { description: 'x', check_name: 'y', fingerprint: 'z', severity: 'fatal', location: { path: 'a' } },
    ]),
  );
  const v = await validateXML({
    xml: [{ fileName: 'bad.xml', contents: '<testsuites><testsuite name="x"><testcase/></testsuite></testsuites>' }],
    schema: [{ fileName: 'junit-10.xsd', contents: JUNIT_XSD }],
  });
  assert.not.ok(v.valid);
});

test('a command without report formats refuses them with a usage error', () => {
  const repo = sample();
  const r = repo.pw(['freeze', 'check', '--format', 'sarif']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--format must be text, json or github/);
});

test.run();
