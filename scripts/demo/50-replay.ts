// Replay: a pinned input that still flickers under a fixed seed is classified,
// and its freeze candidate printed for a human; the ledger is not touched.
import { newRepo, say, section } from './lib.js';

export default function replay(): void {
  section('replay: classify a failure under a fixed seed before anyone freezes it');
  const repo = newRepo({
    '.gitignore': '.bill-cache\n',
    'src/bill.py': [
      'import pathlib',
      '',
      'CACHE = pathlib.Path(".bill-cache")',
      '',
      'def total(items):',
      '    # a cache the previous run left behind: state that no seed or fixture pins',
      '    if CACHE.exists():',
      '        CACHE.unlink()',
      '        return sum(items) - 100',
      '    CACHE.write_text("warm")',
      '    return sum(items)',
      '',
    ].join('\n'),
    'spec/properties/test_bill.py': [
      'import json, os, pathlib, random',
      'from src.bill import total',
      '',
      'INPUTS = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "input"',
      '',
      'def test_total_non_negative(record_property):',
      '    [fixture] = sorted(INPUTS.glob("*.json"))',
      '    record_property("fixture", fixture.stem)',
      '    items = json.loads(fixture.read_text())["items"]',
      '    items.append(random.Random(int(os.environ["PROP_SEED"])).randint(0, 9))',
      '    assert total(items) >= 0',
      '',
    ].join('\n'),
  });
  say('the failing input a property found is pinned as a fixture first:');
  repo.run(`echo '{"items": [3, 2]}' | patchwarden fixtures add -`);
  say(
    'then replayed six times under its seed on a remote runner (here: GitHub Actions, its variables set by hand), with TZ, locale and hash seed pinned; it passes, then fails, then passes…',
  );
  const ci = 'GITHUB_ACTIONS=true GITHUB_RUN_ID=4242 GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY=acme/shop';
  const out = repo.run(
    `${ci} patchwarden replay --runs 6 --seed 20260917 -- 'python3 -m pytest -q -p no:cacheprovider spec/properties --junitxml={junit}' 2>/dev/null`,
  );
  say(
    'a flicker that survives pinning is a freeze candidate, with the CI run as its evidence: printed for a human, never written:',
  );
  repo.run('git diff --quiet -- freeze/signatures.yaml && echo "the ledger was not touched"');
  const line = /^\s*(patchwarden freeze add .*)$/m.exec(out)?.[1];
  if (!line) throw new Error('demo step did not turn out as shown: no freeze add line printed');
  say('the human reviews it, writes the cause into the reason, names the owner and adds the row:');
  repo.run(
    `OWNER=billing-team; ${line.replace('TODO: the cause', 'stale cache file between runs')} && patchwarden freeze list`,
  );
}
