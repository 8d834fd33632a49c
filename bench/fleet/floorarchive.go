package main

import (
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// floorArchiveStep is a cold round of bench/floor with -archive (the archiving floor: the
// floor's fetch, hash and decode, plus each raw body S2-compressed under its hash and each
// decoded incident stored once in a bbolt file, one fdatasync a round), measured as a
// child like the others, into res.FloorArchive.
func (b *bench) floorArchiveStep(r int, dir, cfg string, res *pollResult, round func(string, child) (usage, error)) func() error {
	return func() error {
		c := child{dir: dir, path: b.floor, args: []string{"-config", cfg, "-mode", "cold", "-etags", filepath.Join(dir, "floor-archive-etags"), "-archive", filepath.Join(dir, "floor.db")}}
		if b.caFile != "" {
			c.args = append(c.args, "-ca-file", b.caFile)
		}
		u, err := round("floor archive", c)
		res.FloorArchive = u
		b.logf("run %d: floor cold, archiving: CPU %v, wall %v; %v", r+1, u.CPU.Round(time.Millisecond), u.Wall.Round(time.Millisecond), res.Requests["floor archive"])
		return err
	}
}

// floorTable is the cold round against its floors (issue 18's budget: at most 1.5× the
// fetch-hash-decode floor), each ratio paired within a run.
func (r *results) floorTable(w io.Writer) {
	n := len(r.Poll)
	if n == 0 || r.Poll[0].FloorArchive.CPU <= 0 {
		return
	}
	cpu := func(f func(*pollResult) usage) func(*pollResult) float64 {
		return func(p *pollResult) float64 { return f(p).CPU.Seconds() }
	}
	over := func(num, den func(*pollResult) usage) string {
		return r.over(func(p *pollResult) float64 {
			if den(p).CPU <= 0 {
				return 0
			}
			return num(p).CPU.Seconds() / den(p).CPU.Seconds()
		}).format(n, "×", 2)
	}
	floor := func(p *pollResult) usage { return p.FloorCold }
	arch := func(p *pollResult) usage { return p.FloorArchive }
	watcher := func(p *pollResult) usage { return p.WatcherCold }
	fmt.Fprintf(w, "| cold round over %d sources against the floor | CPU | ÷ floor | budget |\n|---|---|---|---|\n", r.o.Sources)
	fmt.Fprintf(w, "| floor: GETs, SHA-256, JSON decode (`bench/floor`) | %s | 1 | |\n", r.over(cpu(floor)).format(n, " s", 3))
	fmt.Fprintf(w, "| archiving floor: + S2 of each body, each incident stored once, bbolt, one fdatasync (`bench/floor -archive`) | %s | %s | |\n", r.over(cpu(arch)).format(n, " s", 3), over(arch, floor))
	fmt.Fprintf(w, "| `watcher poll` (every version with its evidence) | %s | %s (÷ archiving floor: %s) | ≤ 1.5× |\n\n", r.over(cpu(watcher)).format(n, " s", 3), over(watcher, floor), over(watcher, arch))
}
