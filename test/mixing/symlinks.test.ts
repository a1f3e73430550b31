// Where a symbolic link's target lands, and whether that crosses its zone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaults } from '../../src/config/schema.js';
import { linkCrossing, linkTarget } from '../../src/mixing/symlinks.js';
import { zoneRules } from '../../src/config/zone-rules.js';
import { classifierFrom } from '../../src/zones/classify.js';

const classify = classifierFrom(zoneRules(defaults()));

test("linkTarget: resolved from the link's folder; null outside the repository", () => {
  assert.is(linkTarget('src/a.py', 'b.py'), 'src/b.py');
  assert.is(linkTarget('src/pkg/a.py', '../../lib/a.py'), 'lib/a.py');
  assert.is(linkTarget('src/a.py', '../../etc/passwd'), null);
  assert.is(linkTarget('src/a.py', '/etc/passwd'), null);
  assert.is(linkTarget('src/a.py', '..'), '.');
  assert.is(linkTarget('src/a.py', './pkg/'), 'src/pkg');
});

test('linkCrossing: null inside the zone or outside every zone; the reason otherwise', () => {
  assert.is(linkCrossing('src/a.py', 'b.py', classify), null);
  assert.is(linkCrossing('src/a.py', '../src/pkg', classify), null);
  assert.is(linkCrossing('lib/a.py', '../spec/x.py', classify), null, 'a free link is not a zone crossing');
  assert.is(linkCrossing('src/a.py', '../lib/a.py', classify), 'lib/a.py, in no zone');
  assert.is(linkCrossing('spec/t.py', '../src/a.py', classify), 'src/a.py, in the src zone');
  assert.is(linkCrossing('src/a.py', '../../x', classify), 'outside the repository');
  assert.is(linkCrossing('fixtures/in', '..', classify), 'the top of the repository, in no zone');
  assert.is(linkCrossing('.husky/pre-commit', '../lib/noop.sh', classify), 'lib/noop.sh, in no zone');
  assert.match(
    linkCrossing('src/a.py', 'd/../lib/a.py', classify) ?? '',
    'climbs (..) after a name',
    'd may be a link',
  );
  assert.match(linkCrossing('src/a.py', './d/../b.py', classify) ?? '', 'climbs (..) after a name');
  assert.is(linkCrossing('src/pkg/a.py', '../../src/b.py', classify), null, 'leading climbs start from a real folder');
});

test.run();
