// The guard's own files (the config, the files it names, the adoption
// baseline) must parse at the tip before they land: once on the branch that
// judges, a broken one would judge every later commit and push. The
// pre-commit hook stops the commit on it (exit 2) with a fix for the index;
// the other points refuse it with one for the branch.
import { shellQuote } from '../../common/text.js';
import type { Violation } from '../../common/verdict.js';
import { CONFIG_FILE } from '../../zones/names.js';
import type { Facts } from '../facts.js';
import { POINTS, type Rule } from '../rule.js';

export const guardFileRule: Rule = {
  id: 'guard-file',
  points: POINTS,
  needs: ['guardProblems'],
  async judge(facts: Facts): Promise<Violation[]> {
    return (await facts.guardProblems()).map((p) => {
      const file = p.file?.replace(/^[^:]*:(?=.)/, '') ?? CONFIG_FILE;
      const at = `${file}${p.line ? `:${p.line}` : ''}`;
      if (facts.point === 'pre-commit')
        return {
          rule: 'guard-file',
          paths: [file],
          message: `${at}: ${p.message}`,
          fix: `correct it and stage it again (git add -- ${shellQuote(file)}), or leave it out of this commit (git restore --staged -- ${shellQuote(file)})`,
        };
      return {
        rule: 'guard-file',
        paths: [file],
        message: `${facts.where}: ${at}: ${p.message}; once it lands, it would judge every later commit and push`,
        fix: `correct ${file}${p.line ? ` at line ${p.line}` : ''} (\`patchwarden doctor\` checks the working tree's), commit the correction (git commit -m "Fix ${file}" -- ${file}) and push again`,
      };
    });
  },
};
