// Package sched reads the machine's evidence about a process: how long
// the machine held it back (the time its threads waited, runnable, for a
// CPU; the time a CPU quota throttled its control group; the time the
// hypervisor took the machine's CPUs away) and where it is (its state and
// what each thread is blocked in). The runner weighs a missed bound by
// it: a bound the machine, not the implementation, made it miss decides
// nothing (INTERPRETING.md §5).
//
// Only Linux keeps this accounting; elsewhere every sample reports that it
// could not be read.
package sched
