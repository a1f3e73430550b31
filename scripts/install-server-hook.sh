#!/bin/sh
# Installs patchwarden's pre-receive hook into a bare repository on a git
# server: a plain `git init --bare` repository, a GitLab server-side hook
# (custom_hooks/pre-receive), or a Gitea repository (hooks/pre-receive.d/).
#
#   install-server-hook.sh [--gitlab | --gitea] [--bin PATH] [--branch NAME]
#                          [--bootstrap] BARE_REPO...
#
# --bin PATH pins the patchwarden executable the hook runs (default: the one
# on the server's PATH when the hook runs). --branch NAME is the branch whose
# .patchwarden.yml judges every push (default: the repository's HEAD, when
# that branch exists); it is recorded as git config patchwarden.branch.
# --bootstrap lets pushes through unjudged while that branch has no config
# yet (the first adoption; unset patchwarden.bootstrap afterwards). An
# existing hook that is not patchwarden's is kept as
# pre-receive.pre-patchwarden and run first.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
hook_src="$here/hooks/pre-receive"
kind=plain
bin=""
branch=""
bootstrap=""

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
# --help is an answer, not a mistake: the usage on stdout, exit 0, and a word
# when the hook would find no patchwarden to run.
help() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
  command -v patchwarden >/dev/null 2>&1 || echo "install-server-hook: warning: patchwarden is not on PATH here; install it on the server (npm install -g), or pin it with --bin PATH" >&2
  exit 0
}

while [ $# -gt 0 ]; do
  case "$1" in
    --gitlab) kind=gitlab; shift ;;
    --gitea) kind=gitea; shift ;;
    --bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
    --branch) [ $# -ge 2 ] || usage; branch=$2; shift 2 ;;
    --bootstrap) bootstrap=1; shift ;;
    -h|--help) help ;;
    --) shift; break ;;
    -*) echo "install-server-hook: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage
[ -f "$hook_src" ] || { echo "install-server-hook: $hook_src is missing" >&2; exit 2; }

for repo in "$@"; do
  if [ "$(git -C "$repo" rev-parse --is-bare-repository 2>/dev/null)" != true ]; then
    echo "install-server-hook: $repo is not a bare git repository" >&2
    exit 2
  fi
  # The judging branch: named, or HEAD's when it exists. Never guessed: a
  # HEAD naming master while the project pushes main would judge nothing.
  if [ -n "$branch" ]; then
    case "$branch" in refs/*) judging=$branch ;; *) judging=refs/heads/$branch ;; esac
    git check-ref-format "$judging" || { echo "install-server-hook: $branch is not a valid branch name" >&2; exit 2; }
  else
    judging=$(git -C "$repo" symbolic-ref -q HEAD || true)
    if [ -z "$judging" ] || ! git -C "$repo" rev-parse --verify --quiet "$judging^{commit}" >/dev/null; then
      echo "install-server-hook: $repo: HEAD names ${judging:-no branch}, which has no commits, so there is no branch to judge pushes by" >&2
      echo "install-server-hook: name the branch the project pushes its rules to: --branch main (add --bootstrap for the first adoption, see docs/server.md)" >&2
      exit 2
    fi
  fi
  case "$kind" in
    plain) dir="$repo/hooks" ;;
    gitlab) dir="$repo/custom_hooks" ;;
    gitea) dir="$repo/hooks/pre-receive.d" ;;
  esac
  mkdir -p "$dir"
  # The hook takes its role from its file name, so it is pre-receive everywhere.
  target="$dir/pre-receive"
  if [ -e "$target" ] && ! grep -q 'patchwarden-managed hook' "$target"; then
    if [ -e "$target.pre-patchwarden" ]; then
      echo "install-server-hook: $target is not patchwarden's and $target.pre-patchwarden exists; move one of them away first" >&2
      exit 2
    fi
    mv "$target" "$target.pre-patchwarden"
    echo "install-server-hook: kept the existing hook as $target.pre-patchwarden; it runs first"
  fi
  if [ -n "$bin" ]; then
    # The shared hook finds patchwarden through PATCHWARDEN_BIN; pin it here.
    { printf '#!/bin/sh\n# patchwarden-managed hook (pinned to %s)\n' "$bin"
      printf 'PATCHWARDEN_BIN=%s\nexport PATCHWARDEN_BIN\n' "'$(printf %s "$bin" | sed "s/'/'\\\\''/g")'"
      sed 1d "$hook_src"; } >"$target.tmp"
  else
    cp "$hook_src" "$target.tmp"
  fi
  chmod 755 "$target.tmp"
  mv "$target.tmp" "$target"
  git -C "$repo" config patchwarden.branch "$judging"
  if [ -n "$bootstrap" ]; then
    git -C "$repo" config patchwarden.bootstrap true
    echo "install-server-hook: bootstrap: pushes pass unjudged while $judging has no .patchwarden.yml; afterwards run git -C $repo config --unset patchwarden.bootstrap"
  fi
  echo "install-server-hook: installed $target; $judging judges every push"
done
# The hook fails closed: without the executable it refuses every push. Said
# here, where the administrator is, not at the first push (the git user's
# PATH may differ, so this warns rather than refuses).
if [ -n "$bin" ]; then
  [ -x "$bin" ] || echo "install-server-hook: warning: $bin is not an executable file, so the hook refuses every push until it is; install patchwarden there, or run this again with --bin naming its path" >&2
elif ! command -v patchwarden >/dev/null 2>&1; then
  echo "install-server-hook: warning: patchwarden is not on PATH here, so the hook refuses every push until the git user's PATH has it; install it on the server (npm install -g ./patchwarden-VERSION.tgz, the tarball the project vendors), or run this again with --bin PATH" >&2
fi
