#!/bin/sh
# The cost model against the hardware, on a machine with 16 real cores
# (docs/figures.md, "Checking the model on 16 cores"): the timed hash-lookup
# figures at 1-16 CPUs (under KVM where this host's KVM runs the kernel
# natively, else TCG, which figures.py reports) and the modelled ones from
# the plugin's counts at -smp 16, then one comparison table. About 5-8
# minutes on 16 idle cores from a warm ccache; nothing else should run.
#
#   tools/c2c/c2c_check16.sh [OUT]        (default build/c2c/check16)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build/c2c/check16}
cores=$(nproc)
if [ "$cores" -lt 16 ]; then
	echo "c2c_check16: this host has $cores cores; the check needs 16 (the timed figures" >&2
	echo "c2c_check16: would measure the host's time-slicing, not the kernel)" >&2
	exit 2
fi
mkdir -p "$out"
make deps >/dev/null
make c2c-plugin
# QUICK: 50 ms cells in two passes, and the model's 20 rounds a reader.
python3 tools/figures.py --cpus 16 --quick --kvm 1 --parts hashlookup --out "$out"
python3 tools/c2c.py compare "$out/figures.json" --machine bdw --out "$out/compare.md"
python3 tools/c2c.py compare "$out/figures.json" --machine p3 --out "$out/compare-p3.md"
echo "c2c_check16: $out/compare.md (the report: $out/report.md)"
