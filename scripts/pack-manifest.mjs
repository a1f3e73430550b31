// npm's prepack and postpack: the packed package.json carries no lifecycle
// scripts, so installing the tarball runs nothing and npm has no install
// script to warn about. prepack keeps the checkout's package.json aside and
// writes the stripped one; postpack puts it back. ("prepare" stays in the
// checkout: installing from a git URL builds through it.)
//
// npm runs no postpack when packing fails between the two (a destination
// that cannot be written, a file it cannot read), so prepack also leaves a
// detached watcher behind: once the process that packs (the nearest
// ancestor that is no shell) has ended, it puts package.json back if
// postpack did not.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const kept = 'package.json.packing';
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash', 'ksh']);

function restore() {
  if (existsSync(kept)) renameSync(kept, 'package.json');
}

/** The pid of the nearest ancestor that is not a shell (npm, whatever ran the script), or null where ps cannot say. */
function packer() {
  let pid = process.ppid;
  for (let depth = 0; depth < 8; depth++) {
    const ps = spawnSync('ps', ['-o', 'ppid=', '-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' });
    const m = /^(\d+)\s+(.*)$/.exec((ps.stdout ?? '').trim());
    if (ps.status !== 0 || !m) return null;
    if (!SHELLS.has(path.basename(m[2]))) return pid;
    pid = Number(m[1]);
  }
  return null;
}

/** Polls until `pid` has ended, then restores. */
function watch(pid) {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return err.code === 'EPERM';
    }
  };
  const timer = setInterval(() => {
    if (alive()) return;
    clearInterval(timer);
    restore();
  }, 100);
}

const [mode, arg] = process.argv.slice(2);
if (mode === 'strip') {
  // Read before anything moves: a manifest that does not parse stops here, in place.
  const source = existsSync(kept) ? kept : 'package.json';
  const manifest = JSON.parse(readFileSync(source, 'utf8'));
  delete manifest.scripts;
  delete manifest.devDependencies;
  delete manifest.allowScripts;
  const pid = packer();
  if (pid)
    spawn(process.execPath, [fileURLToPath(import.meta.url), 'watch', String(pid)], {
      detached: true,
      stdio: 'ignore',
    }).unref();
  if (source === 'package.json') renameSync('package.json', kept);
  writeFileSync('package.json', JSON.stringify(manifest, null, 2) + '\n');
} else if (mode === 'watch') {
  watch(Number(arg));
} else {
  restore();
}
