// Package workercmd is calq worker: a process that claims jobs of the
// shared queue (convert, shell, sms) through calq/sched/pgqueue and runs
// them until it is stopped, and --status, the queue's workers. It uses
// smscmd's modem flags for --kinds sms. Command is the command.
package workercmd
