# seed001-rod.gp: gnuplot script for seed 001 Figure 4 from `seed001-rod --data seed001-rod.dat`.
# Usage: gnuplot -e "data='seed001-rod.dat'; out='seed001-rod.png'" examples/seed001-rod.gp
if (!exists("data")) data = 'seed001-rod.dat'
if (!exists("out")) out = 'seed001-rod.png'
set terminal pngcairo size 1000,420
set output out
set multiplot layout 1,2 title "Seed 001 Fig. 4: falling rod, energy dissipated vs restitution"
set xlabel "coefficient of restitution e"
set grid
set key bottom left
set ylabel "D / D(e=0)"
plot data u 1:2 w lp t "Newton", data u 1:4 w lp t "Poisson", data u 1:6 w lp t "Stronge", 0 lc black notitle
set ylabel "D_n / D_n(e=0)"
plot data u 1:3 w lp t "Newton", data u 1:5 w lp t "Poisson", data u 1:7 w lp t "Stronge", 0 lc black notitle
unset multiplot
