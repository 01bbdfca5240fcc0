#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# doc/window.svg from window.sh's output:
#   window_plot.sh window.out doc/window.svg
# Cold lookups/s through one atsd against sa_depth (log x), with the
# run's ClassPortInfo capacity of four nodes and of one node as lines.
out=$1
svg=$2
command -v gnuplot >/dev/null || { echo "window_plot.sh: no gnuplot (apt-get install gnuplot-nox)"; exit 1; }
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
awk '$1 == "cpi" { cpi = $2; node = $4 }
	$1 == "depth" { print $2, $3, cpi, node }' "$out" >"$dat"
gnuplot <<GP
set terminal svg size 720,440 dynamic font "sans,12"
set output "$svg"
set termoption noenhanced
set title "ibats: cold lookups through one atsd against sa_depth (make bench-window)"
set logscale x 2
set xrange [0.8:80]
set yrange [0:*]
set format y "%.0s%c"
set xlabel "sa_depth (SA lookups in flight)"
set ylabel "lookups/s (64 local clients, every address new)"
set key right bottom box opaque samplen 2 spacing 0.9
set grid
plot "$dat" using 1:3 with lines lw 1 lc rgb "gray40" dt 3 title "ClassPortInfo, 4 nodes (the run's capacity)", \\
     "$dat" using 1:4 with lines lw 2 lc rgb "gray50" dt 2 title "ClassPortInfo, 1 node", \\
     "$dat" using 1:2 with linespoints lw 2 lc rgb "dark-violet" pt 7 ps 0.8 title "atsd, cold lookups"
GP
