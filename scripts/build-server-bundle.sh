#!/bin/sh
# Builds a self-contained patchwarden for a git server without Node (GitHub
# Enterprise Server's pre-receive environments, a locked-down host): a
# tarball holding this machine's node binary with the shared libraries it
# loads (run through their own dynamic loader, so the host's libraries do
# not matter), the built bundle and the hook.
#
#   build-server-bundle.sh [OUT.tar.gz]     (default: patchwarden-server-VERSION-linux-ARCH.tar.gz)
#
# Unpacked anywhere (or into the root of a pre-receive environment), it holds
#   patchwarden/bin/patchwarden    the CLI, through the bundled node
#   patchwarden/hooks/pre-receive  the hook, pinned to that CLI
# Install the hook with install-server-hook.sh --bin .../patchwarden/bin/patchwarden,
# or use patchwarden/hooks/pre-receive as GitHub Enterprise's hook script.
# Needs a Linux machine of the server's architecture, with Node 20 and ldd.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
node=$(command -v node) || { echo "build-server-bundle: node is not on PATH" >&2; exit 2; }
command -v ldd >/dev/null 2>&1 || { echo "build-server-bundle: ldd is missing (it lists the libraries node loads)" >&2; exit 2; }
[ -f "$here/dist/main.js" ] || { echo "build-server-bundle: $here/dist is not built; run npm run build" >&2; exit 2; }
version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$here/package.json")
out=${1:-patchwarden-server-$version-linux-$(uname -m).tar.gz}
case "$out" in /*) ;; *) out=$(pwd)/$out ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/patchwarden-server.XXXXXX")
trap 'rm -rf "$work"' EXIT
pw=$work/patchwarden
mkdir -p "$pw/bin" "$pw/lib" "$pw/hooks"
cp "$node" "$pw/bin/node"
cp -R "$here/dist" "$pw/dist"
# Every library node loads, and the loader itself, from ldd's answer.
loader=""
for lib in $(ldd "$node" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*ld-linux[^ ]*\).*/\1/p'); do
  cp -L "$lib" "$pw/lib/"
  case "$lib" in *ld-linux*) loader=$(basename "$lib") ;; esac
done
[ -n "$loader" ] || { echo "build-server-bundle: ldd names no dynamic loader for $node" >&2; exit 2; }
cat >"$pw/bin/patchwarden" <<LAUNCH
#!/bin/sh
# patchwarden through the node bundled beside it, whatever the host has.
d=\$(cd "\$(dirname "\$0")/.." && pwd)
exec "\$d/lib/$loader" --library-path "\$d/lib" "\$d/bin/node" "\$d/dist/main.js" "\$@"
LAUNCH
chmod 755 "$pw/bin/patchwarden"
# The hook, pinned to the CLI beside it wherever the tree is unpacked.
{ printf '#!/bin/sh\n# patchwarden-managed hook (pinned to the bundled CLI)\n'
  printf 'PATCHWARDEN_BIN=$(cd "$(dirname "$0")/.." && pwd)/bin/patchwarden\nexport PATCHWARDEN_BIN\n'
  sed 1d "$here/hooks/pre-receive"; } >"$pw/hooks/pre-receive"
chmod 755 "$pw/hooks/pre-receive"
tar -czf "$out" -C "$work" patchwarden
echo "build-server-bundle: wrote $out"
