"""The test command's timing and its compiler cache (scripts/lib/phase_times.sh, scripts/lib/compiler_cache.sh),
checked in bash as scripts/test sources them. The rules:
- a phase prints "-- NAME: W s, CPU C s" when the next one starts, C counting the CPU of the processes it ran;
- the run ends with one row per phase (wall, CPU, name) and the total, also when the run fails (EXIT trap);
- the run's cache is ccache in build/ccache, for every build but the one run through cubridge_without_run_cache;
- a caller's own launcher (CMAKE_CXX_COMPILER_LAUNCHER) is kept, for the sanitizer tree too."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[3]


def bash(script, env=None):
    base = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    return subprocess.run(["bash", "-c", "set -euo pipefail\n" + script], capture_output=True, text=True,
                          timeout=120, env={**base, **(env or {})}, cwd=ROOT)


TIMED = f"""
source {ROOT}/scripts/lib/phase_times.sh
trap cubridge_phase_report EXIT
cubridge_phase "busy"
awk 'BEGIN {{ for (i = 0; i < 2e8; i++) s += i }}'  # a few CPU seconds, however busy the machine
cubridge_phase "idle"
sleep 1
"""


def test_each_phase_reports_its_wall_and_the_cpu_of_its_processes():
    out = bash(TIMED)
    assert out.returncode == 0, out.stderr
    busy = re.search(r"^-- busy: (\d+) s, CPU (\d+) s$", out.stdout, re.M)
    idle = re.search(r"^-- idle: (\d+) s, CPU (\d+) s$", out.stdout, re.M)
    assert busy and idle, out.stdout
    assert int(busy.group(2)) >= 1, out.stdout  # the spinning child's CPU is counted
    assert int(idle.group(1)) >= 1 and int(idle.group(2)) == 0, out.stdout


def test_the_run_ends_with_the_table_even_when_it_fails():
    out = bash(TIMED + "false\necho never\n")
    assert out.returncode == 1 and "never" not in out.stdout, out.stdout
    table = out.stdout[out.stdout.index("== time per phase"):].splitlines()
    assert re.fullmatch(r" +\d+ +\d+  busy", table[1]) and re.fullmatch(r" +\d+ +\d+  idle", table[2]), table
    assert re.fullmatch(r" +\d+ +\d+  total on \d+ cores", table[3]), table


CACHE = f"""
cubridge_root={ROOT}
source {ROOT}/scripts/lib/compiler_cache.sh
echo "launcher=${{CMAKE_CXX_COMPILER_LAUNCHER:-}} dir=${{CCACHE_DIR:-}} cxx=$CXX"
cubridge_without_run_cache sh -c 'echo "sanitizer tree: launcher=${{CMAKE_CXX_COMPILER_LAUNCHER:-none}}"'
"""


def test_the_runs_cache_is_in_build_and_the_sanitizer_tree_goes_without_it():
    out = bash(CACHE)
    assert out.returncode == 0, out.stderr
    assert f"launcher=ccache dir={ROOT}/build/ccache cxx=g++" in out.stdout, out.stdout
    assert "sanitizer tree: launcher=none" in out.stdout, out.stdout


def test_a_callers_launcher_is_kept_for_every_tree():
    out = bash(CACHE, env={"CMAKE_CXX_COMPILER_LAUNCHER": "my-cache", "CCACHE_DIR": "/elsewhere", "CXX": "c++"})
    assert out.returncode == 0, out.stderr
    assert "launcher=my-cache dir=/elsewhere cxx=c++" in out.stdout, out.stdout
    assert "sanitizer tree: launcher=my-cache" in out.stdout, out.stdout
