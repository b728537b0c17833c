#!/usr/bin/env bash
# No reference to what is not there: every path of this repository named
# in a comment (of a source, a script, a lab spec), a doc, a lab handout
# or the README exists.
#
# A path is a word that starts with one of the repository's top-level
# folders (arch/, boot/, docs/, kernel/, lib/, scripts/, tests/, user/)
# or is one of its top-level files; a source named from below its top
# folder (spinlock.h, locking/spinlock.h, asm/smp.h) must be the end of
# some file's path. "Exists" means git has it: a file only on this disk
# is not in a clone (outside a git work tree, a lab's starter, the disk). It may be a glob (`tests/**/*.c`,
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
# A path under one of Linux's top folders that this tree does not have
# (include/linux/preempt.h, net/core/dev.c, mm/slub.c) is Linux's too.
LINUX_PATHS=('arch/x86/*' kernel/sched/core.c kernel/kthread.c 'kernel/entry/*'
	lib/percpu_counter.c kernel/rcu/tree_plugin.h kernel/context_tracking.c
	tree_plugin.h local_lock_internal.h
	'include/*' 'asm-generic/*' 'net/*' 'mm/*' 'fs/*' 'drivers/*' 'init/*')
# The compiler's freestanding headers, and a one-letter name (x.h, b.c),
# which stands for any file.
OTHER_NAMES=('std*.h' '?.[chS]')
# Paths named for what the reader makes, or a convention nothing uses
# yet: each says so where it is named. And the lab files the starter
# generator leaves out (scripts/lab-starter's HIDDEN): a lab's starter
# tree keeps the docs and scripts that name them, and must build
# (`make grade` there checks these paths too).
EXPECTED_ABSENT=(
	tests/demo.c                  # docs/testing.md: the example to save
	ksyms.asm                     # the symbol table's source, built
	'tests/host/labN_hidden_*.sh' # the grader's hidden host checks
	'tests/labs/labN_hidden_*.c'  # left out of a starter
	tests/labs/labN.starter       # left out of a starter
	docs/labs/lab11-answers.md    # a student of lab 11 writes it
)

# The repository's files: in a git work tree, the ones git has and the
# disk still has (a file only on this disk is not in a clone, and one
# removed with rm is on its way out: naming either is naming nothing);
# elsewhere (a lab's starter tree) the ones on the disk. tracked[] holds
# each file and each folder above one.
declare -A tracked=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t repo < <(git ls-files | while read -r f; do
		[[ -e $f ]] && echo "$f"; done)
else
	mapfile -t repo < <(find arch boot docs kernel lib scripts tests user \
		-type f; printf '%s\n' README.md Makefile linker.ld)
fi
# tail[] holds every file's path with no, one, two... leading folders
# off (kernel/locking/spinlock.h: also locking/spinlock.h, spinlock.h).
declare -A tail=()
for f in "${repo[@]}"; do
	t=$f
	while :; do
		tail[$t]=1
		[[ $t == */* ]] || break
		t=${t#*/}
	done
	while [[ -n $f && -z ${tracked[$f]:-} ]]; do
		tracked[$f]=1
		[[ $f == */* ]] && f=${f%/*} || f=
	done
done

# Where references are written: the sources, scripts, docs and lab specs
# among them.
mapfile -t files < <(find arch boot docs kernel lib scripts tests user \
	-type f \( -name '*.[chS]' -o -name '*.asm' -o -name '*.md' \
	-o -name '*.sh' -o -name '*.py' -o -name '*.gdb' -o -name '*.ld' \
	-o -name '*.grade' -o -name '*.cfg' -o -perm -u+x \) | sort
	printf '%s\n' README.md Makefile linker.ld)
mapfile -t files < <(for f in "${files[@]}"; do
	[[ -n ${tracked[$f]:-} ]] && echo "$f"; done)

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
			} else if (w ~ /^([a-z0-9_-]+\/)*[a-z0-9_-]+\.(c|h|asm|S|ld)[.,:;)]*$/ &&
				   before !~ /[$%{\/.]$/ && rest !~ /^[{$%]/ && !linux) {
				sub(/[.,:;)]+$/, "", w)
				print "%" w "\t" where w
			}
			head = head w
		}
		prev = t
	}' "$@"
}

# has PATH: the repository has it (a file or a folder; DIR/../X and ./X
# as written in a link).
has() {
	local p=$1
	while [[ $p == ./* ]]; do p=${p#./}; done
	while [[ $p =~ ^(.*/)?[^/.][^/]*/\.\./(.*)$ ]]; do
		p=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
	done
	p=${p%/}
	[[ -n ${tracked[$p]:-} ]]
}

# exists GLOB: it names something. @DIR/DOC, a doc named without its
# folder: DOC in DIR, at the top or in docs/. %NAME, a source named
# without its top folder (spinlock.h, asm/smp.h): some file's path ends
# with it.
exists() {
	local m f
	if [[ $1 == @* ]]; then
		m=${1#@}
		has "$m" || has "${m##*/}" || has "docs/${m##*/}"
	elif [[ $1 == %* ]]; then
		[[ -n ${tail[${1#%}]:-} ]]
	elif [[ $1 == *[\*\?\[\{]* ]]; then
		eval "m=($1)"
		for f in "${m[@]}"; do has "$f" && return 0; done
		return 1
	else
		has "$1"
	fi
}

# on_disk GLOB: what exists() would find if the disk were all (a plain
# path or a doc named without its folder).
on_disk() {
	local m=${1#@}
	[[ $1 != %* ]] && { [[ -e $m ]] ||
		[[ $1 == @* && (-e ${m##*/} || -e docs/${m##*/}) ]]; }
}

# allowed WORD: on LINUX_PATHS, EXPECTED_ABSENT or OTHER_NAMES (trailing punctuation
# aside, as the path's glob has none).
allowed() {
	local l w=${1%%+([.,:;)])}
	for l in "${LINUX_PATHS[@]}" "${EXPECTED_ABSENT[@]}" "${OTHER_NAMES[@]}"; do
		# shellcheck disable=SC2053 # an entry may be a pattern
		[[ $w == $l ]] && return 0
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
	if on_disk "$glob"; then
		echo "${where} is not in git (only on this disk: git add it)" >&2
	else
		echo "${where} does not exist" >&2
	fi
	bad=1
done < <(refs "${files[@]}")
exit $bad
