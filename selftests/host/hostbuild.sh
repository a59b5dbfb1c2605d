#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a production host needs to build tcp_hpcc (Documentation/admin-guide.rst,
# "What a host needs"): plain `make` in a scratch copy of the tree, for one
# kernel, must
#   - build tcp_hpcc.ko, hpcc_int.ko, hpccd and hpccctl and nothing else
#     (no test program, fuzzer, benchmark tool, no kernel source extracted);
#   - run no python, clang, pkg-config or YNL tool (shims in front of PATH
#     record any call and fail it);
#   - read headers only from the Debian packages the admin guide lists
#     (every header in the compiler's dependency files, ours and Kbuild's,
#     is mapped to its package with dpkg -S) and link only libc, libmnl and
#     json-c.
# Then `make clean` after the whole test build (check's programs, fuzzers,
# tools, checkpatch, the kernel source members, the guests' python caches)
# leaves no file that git does not track: the products are this tree's,
# copied into the scratch tree when make check has built them, else built
# there.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The packages a host needs for `make` (admin-guide.rst lists them):
# build-essential brings gcc (its own headers: libgcc-12-dev), libc6-dev and
# linux-libc-dev; linux-headers-RELEASE brings -common and linux-kbuild.
ALLOWED_PKGS='^(libc6-dev|linux-libc-dev|libgcc-[0-9]+-dev|libmnl-dev|libjson-c-dev|libsodium-dev|linux-headers-.*|linux-kbuild-.*)$'
ALLOWED_LIBS='^(libc\.so\.6|libmnl\.so\.0|libjson-c\.so\.5|libsodium\.so\.23)$'

KDIR_ONE=
for k in /lib/modules/*/build; do
	[ -e "$k/include/generated/utsrelease.h" ] && KDIR_ONE=$k
done

# A copy of the tracked tree (with the working tree's changes), as a git
# repository of its own so that `git status --ignored` can judge `make clean`.
copy_tree() {
	mkdir -p "$TMP/src" &&
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -d -t "$TMP/src") &&
	(cd "$TMP/src" && git init -q && git add -A &&
	 git -c user.name=t -c user.email=t@t commit -qm tree)
}

shims() {
	local p
	mkdir -p "$TMP/shim"
	for p in python3 python clang clang-14 pkg-config ynl ynl-gen-c.py; do
		printf '#!/bin/sh\necho "%s $*" >> %s/shim.log\nexit 127\n' \
			"$p" "$TMP" > "$TMP/shim/$p"
		chmod +x "$TMP/shim/$p"
	done
}

host_build() {
	local rel f extra
	[ -n "$KDIR_ONE" ] || { echo "no kernel headers"; return 1; }
	copy_tree && shims || return 1
	rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$KDIR_ONE/include/generated/utsrelease.h")
	(cd "$TMP/src" && PATH=$TMP/shim:$PATH make -s KDIR="$KDIR_ONE" \
		LINUX_SRC_TAR=/nonexistent > "$TMP/make.log" 2>&1) ||
		{ tail -20 "$TMP/make.log"; return 1; }
	if [ -s "$TMP/shim.log" ]; then
		echo "the host build ran:"; cat "$TMP/shim.log"; return 1
	fi
	for f in "$rel/kernel/tcp_hpcc.ko" "$rel/kernel/hpcc_int.ko" hpccd hpccctl; do
		[ -s "$TMP/src/build/$f" ] || { echo "build/$f missing"; return 1; }
		echo "built build/$f"
	done
	# nothing else: the only executables in build/ are the two programs
	extra=$(cd "$TMP/src/build" && find . -maxdepth 1 -type f -perm -u+x ! -name hpccd ! -name hpccctl)
	extra+=$(cd "$TMP/src/build" && ls -d linux-src selftests fuzz obj-* 2>/dev/null)
	[ -z "$extra" ] || { echo "also built: $extra"; return 1; }
}

# Every header a host build read, by package.
headers_by_package() {
	local kd
	[ -d "$TMP/src/build/obj" ] || { echo "no host build"; return 1; }
	kd=$(ls -d "$TMP"/src/build/*/kernel | head -1)
	{
		cat "$TMP"/src/build/obj/*/*.d
		# Kbuild: the deps_ lists of the modules' .cmd files
		cat "$kd"/.*.o.cmd
	} | tr ' \\' '\n\n' | sed 's/:$//; s/^\$(wildcard.*//; s/)$//' |
	grep '^/.*\.h$' | grep -v "^$TMP/" | sort -u > "$TMP/headers"
	echo "$(wc -l < "$TMP/headers") system headers read"
	[ -s "$TMP/headers" ] || return 1
	# dpkg -S names files by their packaged paths: resolve links first
	xargs -r realpath -e < "$TMP/headers" | sort -u > "$TMP/real" || return 1
	xargs -r dpkg -S < "$TMP/real" 2>"$TMP/unowned" |
		sed 's/: .*//; s/, /\n/g; s/:amd64//g' | sort -u > "$TMP/pkgs"
	if [ -s "$TMP/unowned" ]; then
		echo "headers no package owns:"; head "$TMP/unowned"; return 1
	fi
	sed 's/^/package: /' "$TMP/pkgs"
	! grep -Ev "$ALLOWED_PKGS" "$TMP/pkgs"
}

linked_libraries() {
	local p libs
	for p in hpccd hpccctl; do
		libs=$(readelf -d "$TMP/src/build/$p" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
		echo "$p needs:" $libs
		! printf '%s\n' $libs | grep -Ev "$ALLOWED_LIBS" || return 1
	done
}

# copy_products - the tested tree's test build, into the scratch tree: its
# ignored files outside build/ (by the tree's .gitignore files, not a
# developer's own excludes; a file that goes while it is copied, a guest's
# python cache being written, is skipped), and a placeholder for each
# entry of build/ but the kept bench, sim, kdebug and kheaders (clean
# removes build/'s entries whole, at depth 1)
copy_products() {
	local f e n=0
	while IFS= read -r -d '' f; do
		(cd "$TOP" && cp -R -d --parents -- "${f%/}" "$TMP/src/" 2>"$TMP/cp.err") ||
			[ ! -e "$TOP/$f" ] ||
			{ echo "copying $f:"; cat "$TMP/cp.err"; return 1; }
		n=$((n + 1))
	done < <(cd "$TOP" && git ls-files -z --others --ignored \
		--exclude-per-directory=.gitignore -- ':(exclude)build/')
	for e in "$TOP"/build/*; do
		f=${e##*/}
		case $f in bench|sim|kdebug|kheaders) continue ;; esac
		if [ -d "$e" ]; then
			mkdir -p "$TMP/src/build/$f" && touch "$TMP/src/build/$f/.product"
		else
			touch "$TMP/src/build/$f"
		fi || return 1
		n=$((n + 1))
	done
	echo "copied $n products of the test build"
}

clean_leaves_nothing() {
	local left st=(git -c core.excludesFile=/dev/null status --porcelain --ignored)
	[ -d "$TMP/src/.git" ] || { echo "no scratch tree"; return 1; }
	# make check has built all, tools, sim, selftest-progs, fuzz-progs
	# and linux-src before the tests, build.sh has run checkpatch and the
	# guests python: a copy of that, not a second build beside a guest;
	# without it (host tests run by hand after plain make), the build
	if [ -d "$TOP/build/fuzz" ] && [ -d "$TOP/build/selftests" ] &&
		[ -d "$TOP/build/linux-src" ]; then
		copy_products || return 1
	else
		echo "no test build in $TOP/build: building it in the scratch tree"
		(cd "$TMP/src" && nice -n 19 make -s -j"$(nproc)" KDIR="$KDIR_ONE" \
			all tools selftest-progs fuzz-progs linux-src > "$TMP/make2.log" 2>&1 &&
		 make -s checkpatch >> "$TMP/make2.log" 2>&1) ||
			{ tail -20 "$TMP/make2.log"; return 1; }
	fi
	echo "$(cd "$TMP/src" && "${st[@]}" | wc -l) untracked or ignored before make clean"
	(cd "$TMP/src" && make -s clean KDIR="$KDIR_ONE" >> "$TMP/make2.log" 2>&1) ||
		{ tail -20 "$TMP/make2.log"; return 1; }
	left=$(cd "$TMP/src" && "${st[@]}")
	[ -z "$left" ] || { echo "left after make clean:"; echo "$left" | head -20; return 1; }
}

# CI runs the README's test command as a user types it, with no install
# step of its own (make check installs its dependencies), and the README's
# two commands are the documented ones.
ci_runs_readme() {
	grep -qx '    make demo' "$TOP/README.md" &&
	grep -qx '    make check' "$TOP/README.md" || { echo "README: commands"; return 1; }
	grep -Eq '^make check( |$)' "$TOP/.ci/run" || { echo ".ci/run: no make check"; return 1; }
	! grep -v '^[[:space:]]*#' "$TOP/.ci/run" | grep -E 'tools/deps|apt-get|make [^c]'
}

ktap_print_header
ktap_set_plan 5
t ".ci/run runs the README's make check and installs nothing itself" ci_runs_readme
t "plain make: both modules, hpccd, hpccctl only; no python, clang, pkg-config or kernel source" host_build
t "the host build reads headers only from the packages admin-guide.rst lists" headers_by_package
t "hpccd and hpccctl link only libc, libmnl and json-c" linked_libraries
t "make clean after the whole test build leaves no untracked or ignored file" clean_leaves_nothing
ktap_finished
