package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

func runIncidents(_ context.Context, e *env, args []string) int {
	fs := newFlags(e, "incidents", "", "Lists archived incidents, newest first.")
	cfgPath := configFlag(fs)
	source := fs.String("source", "", "only this source")
	open := fs.Bool("open", false, "only incidents still open")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, ok := loadConfig(e, *cfgPath)
	if !ok {
		return exitError
	}
	st, ok := openArchive(e, cfg)
	if !ok {
		return exitError
	}
	defer st.Close()
	list, err := st.Incidents(*source)
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return exitError
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INCIDENT\tSTATUS\tIMPACT\tSTARTED\tVERSIONS\tTITLE")
	for _, in := range list {
		inc := &in.Latest
		if *open && (!inc.Open() || in.Removed) {
			continue
		}
		status := string(inc.Status)
		if in.Removed {
			status = "removed"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%d\t%s\n", in.Source, in.ID, status, inc.Impact, fmtTime(inc.StartedAt), in.Versions, oneLine(inc.Title))
	}
	tw.Flush()
	return exitOK
}

func runHistory(_ context.Context, e *env, args []string) int {
	fs := newFlags(e, "history", "SOURCE/ID", "Lists the versions of an incident with when each was observed and what changed.")
	cfgPath := configFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	source, id, ok := splitRef(e, fs.Arg(0))
	if !ok {
		return exitUsage
	}
	cfg, ok := loadConfig(e, *cfgPath)
	if !ok {
		return exitError
	}
	st, ok := openArchive(e, cfg)
	if !ok {
		return exitError
	}
	defer st.Close()
	versions, err := st.Versions(source, id)
	if err == nil && len(versions) == 0 {
		err = archive.ErrNotFound
	}
	if err != nil {
		return browseError(e, source, id, err)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tOBSERVED\tSUMMARY")
	for _, v := range versions {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", v.N, fmtTime(v.ObservedAt), v.Summary)
	}
	tw.Flush()
	return exitOK
}

func runDiff(_ context.Context, e *env, args []string) int {
	fs := newFlags(e, "diff", "SOURCE/ID [FROM [TO]]", "Prints what changed between two versions of an incident (default: the previous → the latest).\nVersion 0 is \"not present\".")
	cfgPath := configFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() < 1 || fs.NArg() > 3 {
		fs.Usage()
		return exitUsage
	}
	source, id, ok := splitRef(e, fs.Arg(0))
	if !ok {
		return exitUsage
	}
	nums := make([]int, 0, 2)
	for _, a := range fs.Args()[1:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			fmt.Fprintf(e.stderr, "watcher diff: version %q is not a number ≥ 0\n", a)
			return exitUsage
		}
		nums = append(nums, n)
	}
	cfg, ok := loadConfig(e, *cfgPath)
	if !ok {
		return exitError
	}
	st, ok := openArchive(e, cfg)
	if !ok {
		return exitError
	}
	defer st.Close()
	versions, err := st.Versions(source, id)
	if err == nil && len(versions) == 0 {
		err = archive.ErrNotFound
	}
	if err != nil {
		return browseError(e, source, id, err)
	}
	latest := versions[len(versions)-1].N
	from, to := latest-1, latest
	switch len(nums) {
	case 1:
		from = nums[0]
	case 2:
		from, to = nums[0], nums[1]
	}
	version := func(n int) (*model.Incident, bool) {
		if n == 0 {
			return nil, true
		}
		if n > len(versions) {
			fmt.Fprintf(e.stderr, "error: %s/%s has no version %d (latest is %d)\n", source, id, n, latest)
			return nil, false
		}
		return &versions[n-1].Incident, true
	}
	before, ok := version(from)
	if !ok {
		return exitError
	}
	after, ok := version(to)
	if !ok {
		return exitError
	}
	if after == nil {
		after = &model.Incident{}
	}
	changes := diff.Changes(before, after)
	fmt.Fprintf(e.stdout, "%s/%s: version %d → %d\n%s\n\n%s", source, id, from, to, diff.Summary(changes), diff.Text(changes))
	return exitOK
}

func splitRef(e *env, ref string) (source, id string, ok bool) {
	source, id, ok = strings.Cut(ref, "/")
	if !ok || source == "" || id == "" {
		fmt.Fprintf(e.stderr, "watcher: %q is not SOURCE/ID\n", ref)
		return "", "", false
	}
	return source, id, true
}

func browseError(e *env, source, id string, err error) int {
	if errors.Is(err, archive.ErrNotFound) {
		fmt.Fprintf(e.stderr, "error: no incident %s/%s in the archive\n", source, id)
	} else {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
	}
	return exitError
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
