// Package analyzecmd is calq analyze: the queueing calculator's commands
// (mmc, mmck, mm1n, mg1, ggc, erlang b and c, size, poisson, resize,
// simulate) and the analysis of calq's own history. Each reads its flags,
// checked in one usage error (flagCheck), calls one function of
// calq/analyze and prints a table or JSON Lines. Command is the group; one
// file per leaf.
package analyzecmd
