#!/usr/bin/env bash
# No reference to what is not there: every path of this repository named
# in a comment (of a source, a script, a lab spec), a doc, a lab handout
# or the README exists.
#
# A path is a word that starts with one of the repository's top-level
# folders (arch/, boot/, docs/, kernel/, lib/, scripts/, tests/, user/)
# or is one of its top-level files. It may be a glob (`tests/**/*.c`,
# `lock_kind.[ch]`, `rtlat.{h,c}`) or hold a placeholder (`labN`, an
# upper-case word such as `user/NAME.c`), and must then match something.
# A Markdown link, [text](target), must reach its target from the file's
# folder; a doc named without its folder (`lockdep.md`) must be there, at
# the top, or in docs/. Not checked: #include lines (scripts/build/includes.sh resolves
# those), words holding a make or shell variable or a format ($(O)/...,
# {n}: build products and paths being put together), and Linux's own
# paths, told apart by "Linux" a few words before them, on the line or
# at the end of the line before ("Linux's kernel/entry/common.c"), or by
# being on LINUX_PATHS.
#
# usage: scripts/build/check-paths.sh
# Fails (exit 1) with one line per missing path: FILE:LINE: PATH ...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
shopt -s globstar nullglob extglob

# Linux's paths that the docs compare with this kernel's in tables,
# where "Linux" heads the column rather than the line.
LINUX_PATHS=('arch/x86/*' kernel/sched/core.c kernel/kthread.c 'kernel/entry/*'
	lib/percpu_counter.c kernel/rcu/tree_plugin.h kernel/context_tracking.c)
# Paths named for what the reader makes, or a convention nothing uses
# yet: each says so where it is named.
EXPECTED_ABSENT=(
	tests/demo.c                  # docs/testing.md: the example to save
	# The grader's hidden checks and a lab's starter blocks: a starter
	# tree (scripts/lab-starter) has none of them.
	'tests/host/labN_hidden_*.sh' 'tests/labs/labN_hidden_*.c'
	tests/labs/labN.starter
)

# Where references are written: the sources, scripts, docs and lab specs
# git has (build directories and other untracked files are not).
mapfile -t files < <(find arch boot docs kernel lib scripts tests user \
	-type f \( -name '*.[chS]' -o -name '*.asm' -o -name '*.md' \
	-o -name '*.sh' -o -name '*.py' -o -name '*.gdb' -o -name '*.ld' \
	-o -name '*.grade' -o -name '*.cfg' -o -perm -u+x \) | sort
	printf '%s\n' README.md Makefile linker.ld)

# "GLOB<TAB>FILE:LINE: WORD" for every path word in the referring text
# of each file: comments of C and assembly, # comments and Python
# docstrings of scripts, the whole of Markdown. A Markdown link's target
# is given relative to the repository.
refs() {
	awk -v top='^(arch|boot|docs|kernel|lib|scripts|tests|user)/|^(README\\.md|Makefile|linker\\.ld)$' '
	FNR == 1 {
		if (FILENAME ~ /\.md$/) mode = "md"
		else if (FILENAME ~ /\.(c|h|S|ld)$/) mode = "c"
		else if (FILENAME ~ /\.asm$/) mode = "asm"
		else mode = "hash"
		py = 0; incomment = 0; indoc = 0; prev = ""
		if (mode == "hash" && $0 ~ /python/) py = 1
		dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
		if (dir == FILENAME) dir = "."
	}
	function text_of(line,    out, i, n, c2, j) {
		if (mode == "md") return line
		if (line ~ /^[ \t]*#[ \t]*include/) return ""
		if (mode == "asm") { j = index(line, ";"); return j ? substr(line, j) : "" }
		if (mode == "hash") {
			if (py && line ~ /"""/) {
				n = gsub(/"""/, "\"\"\"", line)
				if (n == 1) indoc = !indoc
				return line
			}
			if (indoc) return line
			if (match(line, /(^|[ \t])#/)) return substr(line, RSTART)
			return ""
		}
		out = ""; i = 1; n = length(line)
		while (i <= n) {
			c2 = substr(line, i, 2)
			if (incomment) {
				if (c2 == "*/") { incomment = 0; i += 2; continue }
				out = out substr(line, i, 1); i++; continue
			}
			if (c2 == "/*") { incomment = 1; i += 2; continue }
			if (c2 == "//") { out = out substr(line, i + 2); break }
			i++
		}
		return out
	}
	# The word as a glob: trailing punctuation off, placeholders as *.
	function as_glob(p) {
		if (p !~ /\[/) sub(/\]+$/, "", p)
		sub(/[.,:;)]+$/, "", p)
		gsub(/labN/, "lab[0-9]", p)
		while (match(p, /(^|[\/_])[A-Z][A-Z]+([.\/_]|$)/))
			p = substr(p, 1, RSTART) "*" substr(p, RSTART + RLENGTH - 1)
		return p
	}
	{
		t = text_of($0)
		where = FILENAME ":" FNR ": "
		if (mode == "md")
			for (s = t; match(s, /\]\([^) ]+\)/); s = substr(s, RSTART + RLENGTH)) {
				w = substr(s, RSTART + 2, RLENGTH - 3)
				sub(/#.*/, "", w)
				if (w != "" && w !~ /:/)
					print dir "/" w "\t" where w
			}
		linux_prev = (substr(prev, length(prev) - 12) ~ /Linux[^.;]*$/)
		head = ""
		for (s = t; match(s, /[]A-Za-z0-9_.*?\/{},[-]+/); s = rest) {
			w = substr(s, RSTART, RLENGTH); before = substr(s, 1, RSTART - 1)
			rest = substr(s, RSTART + RLENGTH)
			head = head before
			linux = substr(head, length(head) - 24) ~ /Linux[^.;]*$/ ||
				(linux_prev && head !~ /[A-Za-z0-9]/)
			if (w ~ top && before !~ /[$%{]$/ && rest !~ /^[{$%]/ &&
			    w !~ /\{[a-z]*\}/ && !linux)
				print as_glob(w) "\t" where w
			else if (w ~ /^[A-Za-z0-9_-]+\.md[.,:;)]*$/ &&
				 before !~ /(\/|\]\()$/) {
				sub(/[.,:;)]+$/, "", w)
				print "@" dir "/" w "\t" where w
			}
			head = head w
		}
		prev = t
	}' "$@"
}

# exists GLOB: it names something. @DIR/DOC, a doc named without its
# folder: DOC in DIR, at the top or in docs/.
exists() {
	local m
	if [[ $1 == @* ]]; then
		m=${1#@}
		[[ -e $m || -e ${m##*/} || -e docs/${m##*/} ]]
	elif [[ $1 == *[\*\?\[\{]* ]]; then
		eval "m=($1)"
		((${#m[@]} > 0))
	else
		[[ -e $1 ]]
	fi
}

# allowed WORD: on LINUX_PATHS or EXPECTED_ABSENT.
allowed() {
	local l
	for l in "${LINUX_PATHS[@]}" "${EXPECTED_ABSENT[@]}"; do
		# shellcheck disable=SC2053 # an entry may be a pattern
		[[ $1 == $l ]] && return 0
	done
	return 1
}

declare -A seen=()
bad=0
while IFS=$'\t' read -r glob where; do
	if [[ -z ${seen[$glob]:-} ]]; then
		seen[$glob]=ok
		exists "$glob" || allowed "${where##*: }" || seen[$glob]=missing
	fi
	[[ ${seen[$glob]} == ok ]] && continue
	echo "${where} does not exist" >&2
	bad=1
done < <(refs "${files[@]}")
exit $bad
