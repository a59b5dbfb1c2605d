#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man pages against the code, mechanically (selftests/host/manpages.py):
# hpccd's configuration keys with their ranges and defaults, both
# programs' long options, every counter hpccd writes, hpccctl's param
# show list (the netlink spec's params), int show's columns and the words
# int add and int change take.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

ktap_print_header
ktap_set_plan 1
t "hpccd.8 and hpccctl.8 name every option, key and counter of the code, and no other" \
	python3 "$TOP/selftests/host/manpages.py" "$TOP"
ktap_finished
