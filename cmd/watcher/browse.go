package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// browse loads the config and opens a reader for a browse command.
func browse(fs *cmdFlags) (archiveReader, bool) {
	cfg, ok := fs.loadConfig()
	if !ok {
		return nil, false
	}
	r, err := openReader(cfg)
	if err != nil {
		fmt.Fprintf(fs.e.stderr, "error: %v\n", err)
		return nil, false
	}
	return r, true
}

func runIncidents(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "incidents", "", "Lists archived incidents, newest first.")
	source := fs.String("source", "", "only this source")
	open := fs.Bool("open", false, "only incidents still open")
	q := fs.String("q", "", "only incidents with all these words in some version, words since removed included; adds a MATCHED column")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	r, ok := browse(fs)
	if !ok {
		return exitError
	}
	defer r.Close()
	var rows []incidentRow
	var err error
	if strings.TrimSpace(*q) != "" {
		rows, err = r.Search(ctx, *q, *source, *open)
	} else {
		rows, err = r.Incidents(ctx, *source, *open)
	}
	if err != nil {
		return e.fail(err)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	if strings.TrimSpace(*q) != "" {
		printMatches(tw, rows)
		tw.Flush()
		return exitOK
	}
	fmt.Fprintln(tw, "INCIDENT\tSTATUS\tIMPACT\tSTARTED\tVERSIONS\tTITLE")
	for _, in := range rows {
		status := string(in.Status)
		switch {
		case in.Migrated:
			status = "migrated"
		case in.Removed:
			status = "removed"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%d\t%s\n", in.Source, in.ID, status, in.Impact, fmtTime(timeOf(in.StartedAt)), in.Versions, oneLine(in.Title))
	}
	tw.Flush()
	return exitOK
}

// printMatches prints the rows of a search, each with where it matched: "v3 title", or
// "v1 updates, removed in v2" for words the latest version no longer has.
func printMatches(w io.Writer, rows []incidentRow) {
	fmt.Fprintln(w, "INCIDENT\tSTATUS\tSTARTED\tMATCHED\tTITLE")
	for _, in := range rows {
		matched := ""
		if m := in.Matched; m != nil {
			matched = fmt.Sprintf("v%d %s", m.Version, m.Field)
			if !m.Latest {
				matched += fmt.Sprintf(", removed in v%d", m.Version+1)
			}
		}
		fmt.Fprintf(w, "%s/%s\t%s\t%s\t%s\t%s\n", in.Source, in.ID, in.Status, fmtTime(timeOf(in.StartedAt)), matched, oneLine(in.Title))
	}
}

func runHistory(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "history", "SOURCE/ID", "Lists the versions of an incident with when each was observed and what changed.")
	source, id, code, ok := fs.parseRef(args, 1, 1)
	if !ok {
		return code
	}
	r, ok := browse(fs)
	if !ok {
		return exitError
	}
	defer r.Close()
	rows, err := r.Versions(ctx, source, id)
	if err != nil {
		return browseError(e, source, id, err)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tOBSERVED\tSUMMARY")
	for _, v := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", v.N, fmtTime(v.ObservedAt), v.Summary)
	}
	tw.Flush()
	return exitOK
}

func runDiff(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "diff", "SOURCE/ID [FROM [TO]]", "Prints what changed between two versions of an incident (default: the previous → the latest).\nVersion 0 is \"not present\".")
	source, id, code, ok := fs.parseRef(args, 1, 3)
	if !ok {
		return code
	}
	from, to := -1, -1
	for i, a := range fs.Args()[1:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			fmt.Fprintf(e.stderr, "watcher diff: version %q is not a number ≥ 0\n", a)
			return exitUsage
		}
		if i == 0 {
			from = n
		} else {
			to = n
		}
	}
	r, ok := browse(fs)
	if !ok {
		return exitError
	}
	defer r.Close()
	cs, err := r.Diff(ctx, source, id, from, to)
	if err != nil {
		return browseError(e, source, id, err)
	}
	fmt.Fprintf(e.stdout, "%s/%s: version %d → %d\n%s\n\n%s", source, id, cs.From, cs.To, cs.Summary, diff.Terminal(cs.Changes, notify.TerminalStyle(e.stdout), cs.incs...))
	return exitOK
}

func browseError(e *env, source, id string, err error) int {
	if errors.Is(err, archive.ErrNotFound) && !strings.Contains(err.Error(), "no version") {
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
	return diff.FormatTime(t)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
