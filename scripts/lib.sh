# Sourced by make test's scripts (test-all.sh, test-versions.sh, test-side.sh):
# step NAME ends the step before (printing how long it took) and begins NAME;
# step "" only ends it. STEP_PREFIX tells the chains apart in a shared log.
step_start=$(date +%s)
step() {
	local now
	now=$(date +%s)
	[ -n "${STEP:-}" ] && echo "== ${STEP_PREFIX:-}'$STEP' took $((now - step_start)) s"
	STEP=$1
	step_start=$now
	[ -n "$STEP" ] && echo "== ${STEP_PREFIX:-}$STEP"
	return 0
}
