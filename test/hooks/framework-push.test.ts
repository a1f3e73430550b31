// Whether the `git push` under the pre-commit framework pushes one ref: only
// then is the framework's one ref the whole push.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pushesOneRef } from '../../src/hooks/framework-push.js';

test('one ref: no refspec, one refspec, options with values', () => {
  for (const argv of [
    ['git', 'push'],
    ['git', 'push', 'origin'],
    ['git', 'push', 'origin', 'main'],
    ['git', '-C', 'x', 'push', '-u', 'origin', 'topic'],
    ['git', 'push', '-o', 'ci.skip', 'origin', 'main'],
    ['git', 'push', '--force-with-lease=main', 'origin', 'main'],
  ]) {
    assert.is(pushesOneRef(argv), true, argv.join(' '));
  }
});

test('several refs: two refspecs, --all, --tags, --mirror, --follow-tags', () => {
  for (const argv of [
    ['git', 'push', 'origin', 'main', 'topic'],
    ['git', 'push', '--all'],
    ['git', 'push', 'origin', '--tags'],
    ['git', 'push', '--mirror', 'backup'],
    ['git', 'push', '--follow-tags'],
    ['git', 'push', 'origin', '--', 'main', 'topic'],
  ]) {
    assert.is(pushesOneRef(argv), false, argv.join(' '));
  }
});

test('not a push, or no command line: unknown', () => {
  assert.is(pushesOneRef(['git', 'commit']), null);
  assert.is(pushesOneRef(null), null);
});

test.run();
