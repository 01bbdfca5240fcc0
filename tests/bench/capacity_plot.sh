#!/bin/sh
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
set xlabel "ServiceRecords in the SA"
set ylabel "requests/s at saturation"
set key outside right top
set grid
set datafile missing "-"
plot "$dat" using 1:3 with linespoints lw 2 pt 7 title "plugin lookups", \
     "$dat" using 1:2 with linespoints lw 2 pt 5 title "stock lookups", \
     "$dat" using 1:5 with linespoints lw 2 dt 2 pt 7 title "plugin Sets", \
     "$dat" using 1:4 with linespoints lw 2 dt 2 pt 5 title "stock Sets"
EOF
