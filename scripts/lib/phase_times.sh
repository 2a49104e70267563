# Sourced by scripts/test: times each phase of the run (wall-clock seconds, and the CPU seconds its
# processes used), and prints the table when the run ends, failed runs included. CPU seconds are the ones
# to compare between runs on a shared machine: other jobs stretch a phase's wall time, not its CPU time.
# The budget is CI's (.ci/run, 2 cores): a phase whose CPU time is about twice its wall time kept both cores
# busy; one near 1x ran on one core.

cubridge_phase_names=()
cubridge_phase_walls=()
cubridge_phase_cpus=()
cubridge_phase_name=""

# CPU seconds (user + system) of every child this shell has waited for: cutime and cstime of
# /proc/<pid>/stat (fields 16 and 17, in clock ticks), read for this shell ($$) even from a subshell.
cubridge_children_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f", ($14 + $15) / hz }' "/proc/$$/stat"
}

cubridge_phase_end() {
  [ -n "$cubridge_phase_name" ] || return 0
  cubridge_phase_names+=("$cubridge_phase_name")
  cubridge_phase_walls+=($((SECONDS - cubridge_phase_wall0)))
  cubridge_phase_cpus+=("$(awk -v a="$(cubridge_children_cpu)" -v b="$cubridge_phase_cpu0" 'BEGIN { printf "%.0f", a - b }')")
  echo "-- $cubridge_phase_name: ${cubridge_phase_walls[-1]} s, CPU ${cubridge_phase_cpus[-1]} s"
  cubridge_phase_name=""
}

# Starts the phase named $1 (ending the one before).
cubridge_phase() {
  cubridge_phase_end
  cubridge_phase_name="$1"
  cubridge_phase_wall0=$SECONDS
  cubridge_phase_cpu0="$(cubridge_children_cpu)"
}

cubridge_phase_report() {
  cubridge_phase_end
  ((${#cubridge_phase_names[@]})) || return 0
  local i wall=0 cpu=0
  echo "== time per phase (wall s; CPU s of its processes, user + system)"
  for i in "${!cubridge_phase_names[@]}"; do
    printf '%6d %6d  %s\n' "${cubridge_phase_walls[$i]}" "${cubridge_phase_cpus[$i]}" "${cubridge_phase_names[$i]}"
    wall=$((wall + cubridge_phase_walls[i])); cpu=$((cpu + cubridge_phase_cpus[i]))
  done
  printf '%6d %6d  total on %s cores\n' "$wall" "$cpu" "$(nproc)"
}
