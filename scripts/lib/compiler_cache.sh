# Sourced by scripts/test: one compiler cache (ccache) for the run's builds, so the library's sources are
# compiled once for the C++ test tree and the Python package, which use the same compiler and flags
# (Release, GCC). A clean clone starts with an empty cache in build/ccache (CI's runner has no warm cache):
# what it saves is the second compile within one run, and later runs of scripts/test on the same clone.
# A caller's own launcher (CMAKE_CXX_COMPILER_LAUNCHER, e.g. a shared ccache) is kept as it is.

# ccache hashes the compiler's name too, so both builds name the same one.
export CC="${CC:-gcc}" CXX="${CXX:-g++}"
cubridge_run_cache=0
if [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  cubridge_run_cache=1
  export CCACHE_DIR="${CCACHE_DIR:-$cubridge_root/build/ccache}"
  # Paths under the clone are hashed relative to the build directory: build/test-cpp and build/py are
  # both two levels down, so a source's command line is the same in both.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$cubridge_root}"
  # Depend mode: a miss costs the compile alone (no extra preprocessor pass); the second build's hits
  # come from the same sources and headers (direct mode).
  export CCACHE_DEPEND=1
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi

# Runs "$@" without this run's cache: for a tree whose flags no other build shares (the sanitizer tree),
# where every lookup would miss.
cubridge_without_run_cache() {
  if [ "$cubridge_run_cache" = 1 ]; then
    env -u CMAKE_CXX_COMPILER_LAUNCHER -u CMAKE_C_COMPILER_LAUNCHER "$@"
  else
    "$@"
  fi
}
