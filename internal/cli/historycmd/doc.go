// Package historycmd is calq history: the jobs a journal or the shared
// queue recorded, filtered (history.go), their statistics (stats.go) and
// the pruning of old batches (prune.go), through calq/sched/history's
// Store. Command is the group; one file per leaf.
package historycmd
