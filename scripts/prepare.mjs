// npm's `prepare`: runs on this checkout's own `npm install`/`npm ci`, on
// `npm pack`/`npm publish`, and in npm's clone when the package is installed
// from a git URL. It builds dist/ in each case (dist/ is not committed), and
// installs this repository's own husky hooks only in a developer's checkout,
// never in a pack, a publish or a git-dependency clone. Everything it says
// goes to stderr: `npm pack` prints the tarball's name on stdout, and tools
// such as the pre-commit framework read it from there.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 2, 2] });
if (build.status !== 0) process.exit(build.status ?? 1);

const developing =
  ['install', 'ci'].includes(process.env.npm_command ?? '') &&
  existsSync('.git') &&
  !process.env.npm_package_resolved && // set by npm when it prepares a git dependency
  !process.env._PACOTE_NO_PREPARE_;
if (developing) {
  const { default: husky } = await import('husky');
  const said = husky();
  if (said) process.stderr.write(`husky: ${said}\n`);
}
