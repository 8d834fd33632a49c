// Package reliability holds the suites that prove watcher survives: vendor faults, crashes,
// bad input and the archive over time. Every test drives the real binary (a normal build,
// so memory figures are real) against servers on loopback.
package reliability
