#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# doc/capacity.svg from capacity_report.sh's data file:
#   capacity_plot.sh OUT.dat doc/capacity.svg
# ATS lookups/s and Sets/s at saturation against records (log x), stock
# OpenSM against OpenSM with the plugin; sizes a run skipped are left out.
dat=$1
svg=$2
command -v gnuplot >/dev/null || { echo "capacity_plot.sh: no gnuplot (apt-get install gnuplot-nox)"; exit 1; }
gnuplot <<EOF
set terminal svg size 720,440 dynamic font "sans,12"
set output "$svg"
set title "ibats capacity on ibsim (make bench-capacity)"
set logscale x
set logscale y
set xrange [700:1500000]
set yrange [10:200000]
set format x "%.0s%c"
set format y "%.0s%c"
set xlabel "ServiceRecords in the SA"
set ylabel "requests/s at saturation (4 clients x 16 outstanding)"
set key right bottom box opaque samplen 2 spacing 0.9
set grid
set datafile missing "-"
plot "$dat" using 1:7 with lines lw 1 lc rgb "gray40" dt 3 title "ClassPortInfo (ceiling)", \\
     "$dat" using 1:3 with linespoints lw 2 lc rgb "dark-violet" pt 7 ps 0.8 title "plugin: ATS lookups", \\
     "$dat" using 1:2 with linespoints lw 2 lc rgb "dark-green" pt 5 ps 0.8 title "stock: ATS lookups", \\
     "$dat" using 1:5 with linespoints lw 2 lc rgb "blue" dt 2 pt 7 ps 0.8 title "plugin: Sets", \\
     "$dat" using 1:4 with linespoints lw 2 lc rgb "dark-orange" dt 2 pt 5 ps 0.8 title "stock: Sets"
EOF
