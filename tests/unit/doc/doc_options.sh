#!/bin/bash
# SPDX-License-Identifier: MIT
# The man page, the bash completion and --help of one tool name the same
# options, each one its parser takes, and no short option it takes is left
# out; the man page renders without warnings; the completion completes.
# usage: doc_options.sh PROGRAM MAN_PAGE COMPLETION
set -eu
program=$1 man_page=$2 completion=$3
name=$(basename "$program")
fail=0
bad() {
	echo "FAIL: $*" >&2
	fail=1
}

# --- the options each one names ---
from_help=$("$program" --help | grep -oE '^  (-[A-Za-z], )?--[a-z][a-z0-9-]*|^      --[a-z][a-z0-9-]*' |
	grep -oE '(^| )-(-[a-z][a-z0-9-]*|[A-Za-z])' | tr -d ' ' | sort -u)
from_man=$(awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH/ { on = 0 } on && prev == ".TP" { print } { prev = $0 }' "$man_page" |
	sed 's/\\-/-/g; s/\\f[BIR]//g' | grep -oE '(^| )-(-[a-z][a-z0-9-]*|[A-Za-z])' | tr -d ' ' | sort -u)
from_completion=$(sed -n "s/^.*compgen -W '\(-[^']*\)' -- .*$/\1/p" "$completion" | tr ' ' '\n' | sort -u)
[ -n "$from_help" ] || bad "no option found in $name --help"
[ "$from_help" = "$from_man" ] || bad "--help and $man_page differ:" $'\n'"$(diff <(echo "$from_help") <(echo "$from_man"))"
[ "$from_help" = "$from_completion" ] || bad "--help and $completion differ:" $'\n'"$(diff <(echo "$from_help") <(echo "$from_completion"))"

# --- each is the parser's; the parser takes no other short option ---
refused() { # refused ARG: the parser calls it an unknown option
	"$program" "$1" </dev/null 2>&1 >/dev/null | grep -q "unknown option"
}
for option in $from_man; do
	if refused "$option"; then bad "$name refuses $option, which its man page names"; fi
done
refused --no-such-option || bad "$name takes --no-such-option: the probe cannot tell"
for letter in {a..z} {A..Z}; do
	if ! refused "-$letter" && ! grep -qx -- "-$letter" <<<"$from_man"; then
		bad "$name takes -$letter, which its man page does not name"
	fi
done

# --- the man page renders without a warning ---
warnings=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$man_page" 2>&1 >/dev/null) ||
	bad "man -l $man_page failed: $warnings"
[ -z "$warnings" ] || bad "man -l $man_page warns:"$'\n'"$warnings"

# --- the completion completes options and their values ---
complete_words() { # complete_words WORD... (the last is the one completed)
	(
		# shellcheck disable=SC1090
		. "$completion"
		COMP_WORDS=("$name" "$@")
		COMP_CWORD=$#
		COMPREPLY=()
		"$(complete -p "$name" | sed -n 's/.*-F \([^ ]*\) .*/\1/p')"
		printf '%s\n' "${COMPREPLY[@]}" | sort
	)
}
got=$(complete_words --he)
[ "$got" = --help ] || bad "completing --he gave '$got'"
value_option=$(awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH/ { on = 0 } on && prev == ".TP" && /\\fI/ { print; exit } { prev = $0 }' "$man_page" |
	sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z0-9-]*' | head -n 1)
words=$(grep -A2 "^	\(-[A-Za-z]|\)\?$value_option)" "$completion" | sed -n "s/.*compgen -W '\([^']*\)'.*/\1/p")
if [ -n "$words" ]; then
	got=$(complete_words "$value_option" "")
	[ "$got" = "$(tr ' ' '\n' <<<"$words" | sort)" ] || bad "completing $value_option's value gave '$got', not '$words'"
fi

[ "$fail" -eq 0 ] && echo "ok: $name: $(echo $from_help | wc -w) options in --help, man page and completion"
exit "$fail"
