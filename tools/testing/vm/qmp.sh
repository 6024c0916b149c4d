#!/bin/bash
# Guest side of monitor access, for the calls tests make most: the same
# interface and output as tools/testing/vm/qmp (which bench/boot-record.py
# also imports as a Python module), without a Python start per call, which
# under TCG costs one to three seconds where this costs tens of
# milliseconds (ena_lib.sh's $QMP points here):
#
#   qmp.sh qom-get DEV PROP [PROP...]      the value(s), one per line
#   qmp.sh qom-set DEV PROP VALUE [PROP VALUE...]
#                                          VALUE as JSON when it is a JSON
#                                          number, literal, array, object or
#                                          string, else as a string
#   qmp.sh set_link DEV on|off
#
# Anything else (raw QMP, hmp) is handed to the Python client. One command
# per line goes to the virtio-serial port the runner bridges to QMP
# (tools/testing/vm/qmp-relay); the kernel lets one process at a time
# open a port, so a busy port (EBUSY) is tried again. Exit status 1 when
# QEMU answers with an error (its text on stderr).
set -u
err= j= dev=
here=${0%/*}
name=org.ena-fast.qmp

case ${1:-} in
qom-get|qom-set|set_link) ;;
*) exec "$here/qmp" "$@" ;;
esac

port=
for n in /sys/class/virtio-ports/*/name; do
	read -r v < "$n" 2>/dev/null || continue
	if [ "$v" = "$name" ]; then
		port=${n%/name}
		port=/dev/${port##*/}
		break
	fi
done
[ -n "$port" ] || { echo "qmp: no monitor port in this guest (run under tools/testing/vm/run)" >&2; exit 1; }

# jstr TEXT: TEXT as a JSON string, in $j (no subshell: each costs
# under TCG)
jstr() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/\\t}
	j="\"$s\""
}

# jval TEXT: in $j, TEXT itself when it reads as JSON, else TEXT as a
# string
jval() {
	if [[ $1 =~ ^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ||
	      $1 =~ ^(true|false|null)$ || $1 =~ ^[[{\"] ]]; then
		j=$1
	else
		jstr "$1"
	fi
}

# call JSON: send one command, the relay's one-line answer in $reply
call() {
	local fd i
	for ((i = 0; i < 500; i++)); do
		{ exec {fd}<>"$port"; } 2>/dev/null && break
		fd=
		read -rt 0.02 <> <(:) || :
	done
	[ -n "$fd" ] || { echo "qmp: cannot open $port" >&2; return 1; }
	printf '%s\n' "$1" >&"$fd"
	IFS= read -r reply <&"$fd"
	exec {fd}>&-
	[ -n "$reply" ]
}

# show: print the answer in $reply as the Python client does (a string
# unquoted and unescaped, a number or literal as is; nothing for an
# object or a list); status 1 for an error, whose text is then in $err
show() {
	local v
	case $reply in
	'{"return": "'*)
		v=${reply#'{"return": "'}
		v=${v%'"}'}
		v=${v//\\\"/\"}
		v=${v//\\\//\/}
		printf '%b\n' "$v";;
	'{"return": {'*|'{"return": ['*) ;;
	'{"return": '*)
		v=${reply#'{"return": '}
		printf '%s\n' "${v%\}}";;
	*)
		v=${reply#*'"desc": "'}
		[ "$v" = "$reply" ] || v=${v%%'"'*}
		err=$v
		return 1;;
	esac
}

# path DEV: DEV's QOM path as a JSON string, in $dev
path() {
	if [[ $1 == /* ]]; then jstr "$1"; else jstr "/machine/peripheral/$1"; fi
	dev=$j
}

rc=0
case $1 in
qom-get)
	[ $# -ge 3 ] || exec "$here/qmp"
	path "$2"
	for prop in "${@:3}"; do
		jstr "$prop"
		call "{\"execute\": \"qom-get\", \"arguments\": {\"path\": $dev, \"property\": $j}}" ||
			{ rc=1; echo; continue; }
		show || { rc=1; echo "qmp: $err" >&2; [ $# -gt 3 ] && echo; }
	done;;
qom-set)
	[ $# -ge 4 ] && [ $(($# % 2)) = 0 ] || exec "$here/qmp"
	path "$2"
	many=$(($# > 4))
	shift 2
	while [ $# -gt 0 ]; do
		jstr "$1"
		prop=$j
		jval "$2"
		call "{\"execute\": \"qom-set\", \"arguments\": {\"path\": $dev, \"property\": $prop, \"value\": $j}}" ||
			exit 1
		if ! show >/dev/null; then
			[ $many = 1 ] && err="$1: $err"
			echo "qmp: $err" >&2
			exit 1
		fi
		shift 2
	done;;
set_link)
	[ $# = 3 ] || exec "$here/qmp"
	case $3 in on|up|1|true) up=true;; *) up=false;; esac
	jstr "$2"
	call "{\"execute\": \"set_link\", \"arguments\": {\"name\": $j, \"up\": $up}}" || exit 1
	show >/dev/null || { echo "qmp: $err" >&2; rc=1; };;
esac
exit $rc
