# Sourced by the build scripts: lets ccache reuse objects compiled in another checkout of the
# repository (CI builds a fresh clone, whose path may change). Paths under the checkout are
# hashed relative to it, and -g builds (TSan, fuzz) leave the working folder out of the hash.
# A caller's own settings win.
prism_root_for_ccache="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$prism_root_for_ccache}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
unset prism_root_for_ccache
