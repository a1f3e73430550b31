// `patchwarden uninstall`: takes out exactly what init put in, hooks, hook
// manager entries and the "prepare" line, and nothing else: the config, the
// fixture lock and .gitignore are the project's files by then.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isSeq, parseDocument, type YAMLMap } from 'yaml';
import { parse } from '../common/args.js';
import { emit } from '../common/output.js';
import { CannotJudge } from '../common/errors.js';
import { openRepo, worktreeRoot } from '../git/repo.js';
import { PREPARE } from './init.js';
import { CHAINED, HOOKS, MARKER, hookSetup, isOurs } from './install.js';
import { MANAGED_HOOKS, yamlStyle, type Manager } from './managers.js';
import { editPackageJson } from './package-json.js';

export const help = `usage: patchwarden uninstall [--format text|json] [-C DIR]

Removes what init added: patchwarden's hook files (a hook kept as
<hook>${CHAINED} goes back in place), its lines in husky's hook files, its
commands in lefthook's or the pre-commit framework's config, and its
"prepare" script in package.json. The config, the fixture lock and
.gitignore stay: they are the project's files. Run the manager's install
afterwards when it has one (lefthook install, pre-commit install).`;

export async function run(args: string[]): Promise<number> {
  const { common } = parse(args, {}, false);
  const repo = await openRepo(common.dir);
  const root = worktreeRoot(repo);
  const setup = await hookSetup(repo, root);
  const actions: string[] = [];
  if (setup.manager) actions.push(...unwireManager(root, setup.manager));
  else {
    for (const hook of HOOKS) {
      const file = path.join(setup.installDir, hook);
      const shown = path.relative(root, file) || file;
      if (!isOurs(file)) continue;
      if (setup.style === 'husky') {
        const left = withoutBlock(readFileSync(file, 'utf8'));
        if (left.replace(/^#!.*\n/, '').trim()) {
          writeFileSync(file, left);
          actions.push(`${shown}: removed the guard's lines`);
        } else {
          rmSync(file);
          actions.push(`${shown}: removed`);
        }
      } else {
        rmSync(file);
        if (existsSync(file + CHAINED)) {
          renameSync(file + CHAINED, file);
          actions.push(`${shown}: removed; ${hook}${CHAINED} is back in place`);
        } else actions.push(`${shown}: removed`);
      }
    }
  }
  actions.push(...removePrepare(root));
  if (!actions.length) actions.push("nothing of patchwarden's is installed here");
  return emit(common.format, { ok: true, json: { actions }, text: actions.map((a) => `patchwarden: ${a}`) });
}

/** A husky file without the block init added (from the marker line through the line that runs the guard). */
function withoutBlock(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.includes(MARKER));
  if (start < 0) return text;
  let end = lines.findIndex((l, i) => i > start && /^\s*("\$pw"|patchwarden) [\w-]+ "\$@"\s*$/.test(l));
  if (end < 0) return text;
  if (lines[end + 1] === '') end++;
  lines.splice(start, end - start + 1);
  return lines.join('\n');
}

function unwireManager(root: string, m: Manager): string[] {
  const file = path.join(root, m.config);
  const text = readFileSync(file, 'utf8');
  const doc = parseDocument(text);
  if (doc.errors.length)
    throw new CannotJudge(`${doc.errors[0].message.split('\n')[0]}; fix it, then rerun uninstall`, { file });
  let removed = 0;
  if (m.name === 'lefthook') {
    for (const hook of MANAGED_HOOKS) {
      if (doc.hasIn([hook, 'commands', 'patchwarden'])) {
        doc.deleteIn([hook, 'commands', 'patchwarden']);
        removed++;
      }
      const commands = doc.getIn([hook, 'commands']);
      if (isMap(commands) && !commands.items.length) doc.deleteIn([hook, 'commands']);
      const section = doc.get(hook);
      if (isMap(section) && !section.items.length) doc.delete(hook);
    }
  } else {
    const repos = doc.get('repos');
    if (isSeq(repos)) {
      for (const entry of [...repos.items]) {
        if (!isMap(entry)) continue;
        const hooks = (entry as YAMLMap).get('hooks');
        if (!isSeq(hooks)) continue;
        const ours = hooks.items.filter((h) => isMap(h) && /^patchwarden-/.test(String(h.get('id'))));
        for (const h of ours) hooks.items.splice(hooks.items.indexOf(h), 1);
        removed += ours.length;
        if (ours.length && !hooks.items.length) repos.items.splice(repos.items.indexOf(entry), 1);
      }
    }
  }
  if (!removed) return [];
  writeFileSync(file, doc.toString(yamlStyle(text)));
  return [`${m.config}: removed patchwarden's commands; run \`${m.install}\` so git's hooks follow`];
}

function removePrepare(root: string): string[] {
  const edit = editPackageJson(root);
  if (edit === null || edit === 'invalid') return [];
  const { pkg } = edit;
  const prepare = pkg.scripts?.prepare;
  if (!prepare?.includes(PREPARE)) return [];
  const rest = prepare.replace(` && ${PREPARE}`, '').replace(PREPARE, '').trim();
  if (rest) pkg.scripts!.prepare = rest;
  else delete pkg.scripts!.prepare;
  if (!Object.keys(pkg.scripts!).length) delete pkg.scripts;
  edit.save();
  return [`package.json: removed "${PREPARE}" from "prepare"`];
}
