package main

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify/route"
)

func runOutbox(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "outbox", "[list | retry ID… | drop ID…]", "Shows undelivered (pending) and parked messages; retry puts parked messages back in the queue; drop deletes messages for good.")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	verb, rest := "list", fs.Args()
	if len(rest) > 0 {
		verb, rest = rest[0], rest[1:]
	}
	var ids []uint64
	for _, a := range rest {
		id, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			fmt.Fprintf(e.stderr, "watcher outbox: %q is not a message ID\n", a)
			return exitUsage
		}
		ids = append(ids, id)
	}
	switch {
	case verb == "list" && len(ids) == 0:
	case (verb == "retry" || verb == "drop") && len(ids) > 0:
	default:
		fs.Usage()
		return exitUsage
	}
	cfg, ok := fs.loadConfig()
	if !ok {
		return exitError
	}
	store, api, err := openArchive(cfg, archive.Options{MustExist: true, ReadOnly: verb == "list"})
	if err != nil {
		return e.fail(err)
	}
	if api != nil {
		return outboxThroughDaemon(ctx, e, api, verb, ids)
	}
	defer store.Close()
	if verb == "list" {
		msgs, err := store.Messages(model.MessagePending, model.MessageParked)
		if err != nil {
			return e.fail(err)
		}
		printMessages(e, msgs)
		return exitOK
	}
	op := store.Retry
	if verb == "drop" {
		op = store.Drop
	}
	return eachMessage(e, verb, ids, op)
}

func outboxThroughDaemon(ctx context.Context, e *env, api *apiClient, verb string, ids []uint64) int {
	if verb == "list" {
		var msgs []model.Message
		err := pages(ctx, api, "/api/v1/outbox", nil, func(m model.Message) { msgs = append(msgs, m) })
		if err != nil {
			return e.fail(err)
		}
		printMessages(e, msgs)
		return exitOK
	}
	return eachMessage(e, verb, ids, func(id uint64) error {
		_, err := api.call(ctx, "POST", fmt.Sprintf("/api/v1/outbox/%d/%s", id, verb), nil)
		return err
	})
}

// eachMessage does verb (retry or drop) to each message with op, and says on a line
// what became of it; a message it failed for makes the exit code an error.
func eachMessage(e *env, verb string, ids []uint64, op func(id uint64) error) int {
	code := exitOK
	for _, id := range ids {
		if err := op(id); err != nil {
			fmt.Fprintf(e.stderr, "message %d: %v\n", id, err)
			code = exitError
			continue
		}
		fmt.Fprintf(e.stdout, "message %d: %s\n", id, map[string]string{"retry": "queued again", "drop": "dropped"}[verb])
	}
	return code
}

func printMessages(e *env, msgs []model.Message) {
	if len(msgs) == 0 {
		fmt.Fprintln(e.stdout, "outbox empty: every message was delivered")
		return
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tRECEIVER\tCREATED\tEVENT\tABOUT\tATTEMPTS\tLAST ERROR")
	for _, m := range msgs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", m.ID, m.State, cmp.Or(m.Receiver, route.Slack), fmtTime(m.CreatedAt), m.Event, messageAbout(m), m.Attempts, oneLine(m.LastError))
	}
	tw.Flush()
}

// messageAbout names what a message announces: an incident's version, a version of the
// source's component set (in an incident's thread when one took it), or the source.
func messageAbout(m model.Message) string {
	switch {
	case m.Event == model.EventComponentDegraded || m.Event == model.EventComponentRecovered:
		about := fmt.Sprintf("%s components v%d", m.Source, m.Version)
		if m.IncidentID != "" {
			about += fmt.Sprintf(" (in %s/%s's thread)", m.Source, m.IncidentID)
		}
		return about
	case m.IncidentID != "":
		return fmt.Sprintf("%s/%s v%d", m.Source, m.IncidentID, m.Version)
	}
	return m.Source
}
