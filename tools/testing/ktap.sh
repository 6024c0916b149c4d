# shellcheck shell=bash
# Counting a step's KTAP output (sourced by run-tests and
# bench/async-selftests.sh; tools/testing/harness/selftest tests it).
#
# ktap_count FILE: sets ktap_p, ktap_f and ktap_s to the passed, failed and
# skipped (SKIP or XFAIL) results of FILE's top-level KTAP documents, and
# prints a "not ok" line for every document whose plan ("1..N") its results
# do not match: a test that planned 14 cases and stopped after 10 failed,
# whatever the 10 said; a document that starts with "TAP version" or
# "KTAP version" and never gives a plan failed too (it stopped before it).
# A document starts at such a version line (or at a second plan); indented
# lines (subtests) and diagnostics are not counted.
ktap_count() {
	local r
	r=$(awk '
	function close_doc() {
		if (plan != "" && n != plan) {
			printf "not ok - KTAP document %d: planned %d results, got %d\n", doc, plan, n
			f++
		} else if (plan == "" && inv) {
			printf "not ok - KTAP document %d: no plan (1..N), %d results\n", doc, n
			f++
		}
		plan = ""; n = 0; inv = 0
	}
	BEGIN { p = 0; f = 0; s = 0; n = 0; plan = ""; doc = 0; inv = 0 }
	/^K?TAP version / { close_doc(); doc++; inv = 1; next }
	/^1\.\.[0-9]+/ {
		if (plan != "") { close_doc(); doc++ }
		if (doc == 0) doc = 1
		plan = substr($1, 4) + 0; next
	}
	/^ok [0-9]+( |$)/ { n++; if ($0 ~ /# (SKIP|XFAIL)/) s++; else p++; next }
	/^not ok [0-9]+( |$)/ { n++; f++; next }
	END { close_doc(); printf "counts %d %d %d\n", p, f, s }
	' "$1")
	grep -v '^counts ' <<< "$r"
	# shellcheck disable=SC2034 # the results, for the caller
	read -r _ ktap_p ktap_f ktap_s <<< "$(grep '^counts ' <<< "$r")"
}
