# How busy the host is (sourced by scripts/run-tests.sh; run as a script
# by scripts/grade, which prints the figure).
#
# host_busy_millicores: the host's cores busy over half a second, in
# thousandths, from /proc/stat's first line (user nice system idle iowait
# irq softirq steal ...: the 4th and 5th are idle time).
host_busy_millicores() {
	local a b total=0 idle i
	read -ra a < /proc/stat
	sleep 0.5
	read -ra b < /proc/stat
	for i in 1 2 3 4 5 6 7 8; do
		((total += ${b[i]:-0} - ${a[i]:-0}))
	done
	idle=$((b[4] + b[5] - a[4] - a[5]))
	echo $((total ? (total - idle) * $(nproc) * 1000 / total : 0))
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	host_busy_millicores
fi
