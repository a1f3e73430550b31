// Reading `git commit`'s command line the way git's option parser does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { amends, subcommand } from '../../src/hooks/amend.js';

test('--amend, its abbreviations and --no-amend: the last one wins', () => {
  for (const args of [['--amend'], ['--amen'], ['--am'], ['-q', '--amend', '-m', 'x'], ['--no-amend', '--amend'], ['--amend', '--', 'src/a.py']]) assert.ok(amends(args), args.join(' '));
  for (const args of [[], ['--amend', '--no-amend'], ['--no-am'], ['-a'], ['--', '--amend'], ['--a'], ['--fixup=amend:HEAD']]) assert.not.ok(amends(args), args.join(' '));
});

test('an option value that reads --amend is a value', () => {
  for (const args of [['-m', '--amend'], ['-qm', '--amend'], ['--message', '--amend'], ['-F', '--amend'], ['-C', '--amend'], ['--author', '--amend'], ['--mess', '--amend'], ['--trailer', '--amend']]) assert.not.ok(amends(args), args.join(' '));
  for (const args of [['-m--amend', '--amend'], ['--message=--amend', '--amend'], ['-S', '--amend'], ['-uno', '--amend']]) assert.ok(amends(args), args.join(' '));
});

test('git\'s own options come before the subcommand; the dashed form names it', () => {
  assert.equal(subcommand(['git', '-C', 'dir', '-c', 'a.b=c', '--no-pager', 'commit', '--amend']), { name: 'commit', args: ['--amend'] });
  assert.equal(subcommand(['/usr/lib/git-core/git-commit', '--amend']), { name: 'commit', args: ['--amend'] });
  assert.equal(subcommand(['git', '--git-dir', 'x', 'ci', '-q']), { name: 'ci', args: ['-q'] });
  assert.is(subcommand(['git', '-c', 'x=y']), null);
});

test.run();
