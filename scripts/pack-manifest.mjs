// npm's prepack and postpack: the packed package.json carries no lifecycle
// scripts, so installing the tarball runs nothing and npm has no install
// script to warn about. prepack keeps the checkout's package.json aside and
// writes the stripped one; postpack puts it back. ("prepare" stays in the
// checkout: installing from a git URL builds through it.)
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const kept = 'package.json.packing';
if (process.argv[2] === 'strip') {
  if (!existsSync(kept)) renameSync('package.json', kept);
  const manifest = JSON.parse(readFileSync(kept, 'utf8'));
  delete manifest.scripts;
  delete manifest.devDependencies;
  delete manifest.allowScripts;
  writeFileSync('package.json', JSON.stringify(manifest, null, 2) + '\n');
} else if (existsSync(kept)) {
  renameSync(kept, 'package.json');
}
