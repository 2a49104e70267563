# Sourced by scripts/test and scripts/demo: installs what a fresh machine of this kind lacks (Debian
# packages, a Python virtual environment) and activates the environment. scripts/demo sets
# CUBRIDGE_SETUP_FOR=demo first and gets only what the demo needs (a C++ compiler, CMake, Ninja, venv;
# requirements-demo.txt); the tests also need clang with its sanitizer runtime, GoogleTest and
# requirements-test.txt, and ccache (one compile of the library for the C++ tests and the package).
# The CUDA 13 toolkit (nvcc, NVRTC, libNVVM, nvJitLink) comes with the machine; it is checked, not installed.
set -euo pipefail

cubridge_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

setup_for="${CUBRIDGE_SETUP_FOR:-test}"
debs=(cmake ninja-build g++ python3-venv)
requirements="$cubridge_root/requirements-demo.txt"
if [ "$setup_for" = test ]; then
  debs+=(clang libclang-rt-14-dev libgtest-dev ccache)
  requirements="$cubridge_root/requirements-test.txt"
fi
need_debs=()
for pkg in "${debs[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_debs+=("$pkg")
done
if ((${#need_debs[@]})); then
  echo "setup: installing Debian packages: ${need_debs[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_debs[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDA_HOME:-}" ]; then
  echo "setup: the CUDA 13 toolkit was not found (no nvcc on PATH, no /usr/local/cuda, no CUDA_HOME)." >&2
  echo "       cubridge builds against the toolkit's headers and loads NVRTC/libNVVM/nvJitLink at run time." >&2
  exit 1
fi
export PATH="$PATH:/usr/local/cuda/bin"

venv="$cubridge_root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating $venv"
  python3 -m venv "$venv"
fi
# shellcheck disable=SC1091
source "$venv/bin/activate"
stamp="$venv/.$(basename "$requirements" .txt).sha"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing Python packages from $(basename "$requirements")"
  python -m pip install -q --upgrade pip
  python -m pip install -q -r "$requirements"
  echo "$want" > "$stamp"
fi

# Builds the Python package into the virtual environment (pip install . is the whole build).
cubridge_install_package() {
  python -m pip install -q --no-build-isolation --no-deps -C build-dir=build/py "$cubridge_root"
}
