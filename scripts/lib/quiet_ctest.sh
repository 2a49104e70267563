# Sourced by scripts/test (and tests/python/package/test_test_logs.py, which checks it on ctest's real lines).
# CTest's lines for tests that passed or skipped (a skipped test's reason is in its own output; the
# GPU machine runs them): dropped from the log, so a failure's output stands out in a short log.
quiet_ctest() {
  # ctest pads names with dots up to the status ("...***Skipped"), lists skipped tests again at the end, and
  # says where --test-dir took it.
  grep --line-buffered -v -E '^[[:space:]]+Start +[0-9]+: |Test +#[0-9]+: .*(Passed|\*\*\*Skipped) |^[[:space:]]+[0-9]+ - .* \(Skipped\)$|^The following tests did not run:$|^Internal ctest changing into directory: ' || true
}
