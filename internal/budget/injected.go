package budget

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Injected is a sidecar that its mesh's injector adds to the pod at
// admission: the pod spec does not hold it.
type Injected struct {
	Exit
	// Start says how the injector starts it.
	Start string
}

// InjectedExit reads when a sidecar its mesh injects leaves, from its own
// exit settings (delays, in the preset's order) on the pod template's
// annotations, as they will be once the function has written its own: the
// first setting present decides (a boolean switch only when true), else
// the first default. With no setting known it leaves at SIGTERM, at 0 s.
func InjectedExit(name string, delays []preset.Delay, annotations map[string]string) Exit {
	e := Exit{Name: name, Injected: true}
	for _, d := range delays {
		v, ok := setting(d, annotations)
		switch {
		case !ok:
			continue
		case d.UntilIdle():
			if on, err := strconv.ParseBool(v); err != nil || !on {
				continue // the vendor reads anything else as false
			}
			e.UntilIdle, e.Seconds, e.Source = true, durationSeconds(d.Minimum), settingName(d)+" "+report.Quote(v)
			return e
		}
		e.Source = settingName(d) + " " + report.Quote(v)
		seconds, err := parseSetting(d, v)
		if err != nil {
			e.Problem = "it is not " + formatWords(d.Format)
			return e
		}
		e.Seconds = seconds
		return e
	}
	for _, d := range delays {
		if d.Default != "" && !d.UntilIdle() {
			e.Seconds, e.Source = durationSeconds(d.Default), "no "+settingName(d)+": its default "+d.Default
			return e
		}
	}
	return e
}

// setting returns the value of an exit setting on the pod template; a
// container's environment is not read: an injected sidecar has none here.
func setting(d preset.Delay, annotations map[string]string) (string, bool) {
	if d.Annotation == "" {
		return "", false
	}
	v, ok := annotations[d.Annotation]
	if ok && d.Field != "" {
		return tree.MappingPath(v, strings.Split(d.Field, ".")...)
	}
	return v, ok
}

// settingName names an exit setting in a message.
func settingName(d preset.Delay) string {
	if d.Field != "" {
		return d.Field + " in " + d.Annotation
	}
	return d.Annotation
}

// parseSetting reads a setting's value in its format, in whole seconds.
func parseSetting(d preset.Delay, v string) (int64, error) {
	if d.Format == preset.FormatSeconds {
		n, err := strconv.ParseUint(v, 10, 31)
		return int64(n), err
	}
	dur, err := time.ParseDuration(v)
	if err == nil && dur < 0 {
		err = strconv.ErrRange
	}
	return config.Seconds(dur), err
}

// formatWords says what a setting's value must be.
func formatWords(format string) string {
	if format == preset.FormatSeconds {
		return "a number of seconds"
	}
	return "a duration such as 30s"
}

// durationSeconds is a catalog duration in whole seconds; the catalog's
// values are checked when it is read.
func durationSeconds(v string) int64 {
	d, _ := config.ParseExitDelay(v)
	return config.Seconds(d)
}

// stop lays out the shutdown of a sidecar injected in ordered mode, and
// returns when it leaves: when its exit delay ends, or, staying until its
// connections have closed, once the application has exited (appEnd; not
// placed when an application's exit cannot be) and its minimum has passed.
// A native one is left to kubelet, which stops it after the containers.
func (in Injected) stop(drain Drain, appEnd int64, appUnplaced bool, tl *Timeline, mark func(int64, bool, string, ...any)) int64 {
	who := in.Name + " (injected)"
	switch {
	case in.Native:
		return 0
	case in.Problem != "":
		mark(0, false, "%s: its exit setting %s cannot be read (%s), so its exit is not placed", who, in.Source, in.Problem)
		return 0
	case in.UntilIdle && appUnplaced:
		mark(0, false, "%s: SIGTERM; it drains and stays until its connections have closed, at least %ds (%s): not placed, as the application's exit cannot be", who, in.Seconds, in.Source)
		return 0
	case in.UntilIdle:
		end := max(appEnd, in.Seconds)
		tl.Bars = append(tl.Bars, Bar{Row: who, Label: "drains until idle", End: end})
		mark(0, false, "%s: SIGTERM; it drains and stays until its connections have closed, at least %ds (%s)", who, in.Seconds, in.Source)
		mark(end, false, "%s leaves once the application has exited and its connections have closed", who)
		return end
	case in.Seconds == 0:
		mark(0, false, "%s: leaves at SIGTERM (%s)", who, in.Source)
	default:
		tl.Bars = append(tl.Bars, Bar{Row: who, Label: "exit delay", End: in.Seconds})
		mark(0, false, "%s: stays %ds after termination starts (%s)", who, in.Seconds, in.Source)
		mark(in.Seconds, false, "%s leaves", who)
	}
	if drain.Container != "" && drain.Seconds > 0 && in.Seconds <= drain.Seconds {
		tl.Breaks = append(tl.Breaks, fmt.Sprintf("%s leaves at %ds, before the preStop of %s (%ds) ends", who, in.Seconds, drain.Container, drain.Seconds))
		tl.Marks[len(tl.Marks)-1].Breaks = true
		if in.Seconds > 0 {
			tl.Bars[len(tl.Bars)-1].Breaks = true
		}
	}
	return in.Seconds
}
