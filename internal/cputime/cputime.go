// Package cputime reads the CPU time the process has used, for benchmarks and measuring
// tools: on a shared machine wall time swings with the neighbours' load, CPU time much less.
package cputime
