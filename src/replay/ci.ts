// Where a replay ran, from the CI provider's own variables: the evidence a
// freeze row names (ci and run). Only variables each provider documents as
// its own are read; a runner that sets none is no CI run.

export interface CiRun {
  provider: 'github' | 'gitlab' | 'buildkite' | 'circleci' | 'jenkins';
  /** The run's URL where the provider gives one, else its id. */
  run: string;
}

export function ciRun(env: NodeJS.ProcessEnv = process.env): CiRun | null {
  const v = (k: string) => env[k]?.trim() || undefined;
  if (v('GITHUB_ACTIONS') === 'true' && v('GITHUB_RUN_ID')) {
    const url =
      v('GITHUB_SERVER_URL') && v('GITHUB_REPOSITORY')
        ? `${v('GITHUB_SERVER_URL')}/${v('GITHUB_REPOSITORY')}/actions/runs/${v('GITHUB_RUN_ID')}`
        : undefined;
    const attempt = v('GITHUB_RUN_ATTEMPT');
    return {
      provider: 'github',
      run: url ? `${url}${attempt && attempt !== '1' ? `/attempts/${attempt}` : ''}` : v('GITHUB_RUN_ID')!,
    };
  }
  if (v('GITLAB_CI') === 'true' && (v('CI_JOB_URL') || v('CI_JOB_ID')))
    return { provider: 'gitlab', run: (v('CI_JOB_URL') ?? v('CI_JOB_ID'))! };
  if (v('BUILDKITE') === 'true' && (v('BUILDKITE_BUILD_URL') || v('BUILDKITE_BUILD_ID'))) {
    const job = v('BUILDKITE_JOB_ID');
    return {
      provider: 'buildkite',
      run: v('BUILDKITE_BUILD_URL') ? `${v('BUILDKITE_BUILD_URL')}${job ? `#${job}` : ''}` : v('BUILDKITE_BUILD_ID')!,
    };
  }
  if (v('CIRCLECI') === 'true' && (v('CIRCLE_BUILD_URL') || v('CIRCLE_WORKFLOW_JOB_ID')))
    return { provider: 'circleci', run: (v('CIRCLE_BUILD_URL') ?? v('CIRCLE_WORKFLOW_JOB_ID'))! };
  if (v('JENKINS_URL') && (v('BUILD_URL') || v('BUILD_TAG')))
    return { provider: 'jenkins', run: (v('BUILD_URL') ?? v('BUILD_TAG'))! };
  return null;
}

/**
 * The CI variables a run saw, recorded beside its results: the ones ciRun
 * reads and a few that say where and what it ran. Named one by one, so no
 * token (CI_JOB_TOKEN, ACTIONS_RUNTIME_TOKEN) is ever written down.
 */
const CI_VARS = [
  'CI',
  'GITHUB_ACTIONS',
  'GITHUB_RUN_ID',
  'GITHUB_RUN_ATTEMPT',
  'GITHUB_SERVER_URL',
  'GITHUB_REPOSITORY',
  'GITHUB_WORKFLOW_REF',
  'GITHUB_SHA',
  'GITHUB_REF',
  'GITHUB_EVENT_NAME',
  'RUNNER_OS',
  'RUNNER_ENVIRONMENT',
  'GITLAB_CI',
  'CI_JOB_URL',
  'CI_JOB_ID',
  'CI_PIPELINE_ID',
  'CI_PROJECT_PATH',
  'CI_COMMIT_SHA',
  'BUILDKITE',
  'BUILDKITE_BUILD_URL',
  'BUILDKITE_BUILD_ID',
  'BUILDKITE_JOB_ID',
  'CIRCLECI',
  'CIRCLE_BUILD_URL',
  'CIRCLE_WORKFLOW_JOB_ID',
  'JENKINS_URL',
  'BUILD_URL',
  'BUILD_TAG',
];

export function ciVars(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(CI_VARS.flatMap((k) => (env[k] === undefined ? [] : [[k, env[k]!]])));
}
