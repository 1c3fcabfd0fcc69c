// Package prestop reads how long a container's preStop hook runs: the sleep
// action, an exec of sleep, or a shell command whose first command is a
// sleep. Anything else has a duration the function does not know, and says
// so; it is never guessed.
package prestop

import (
	"math"
	"path"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
)

// Duration is what the function reads of one preStop hook.
type Duration struct {
	// Present reports whether the container has a preStop hook.
	Present bool
	// Known reports whether Seconds is the hook's duration. A hook that is
	// absent is known, and lasts 0 seconds.
	Known bool
	// Seconds is how long the hook runs, at least: a shell command that
	// sleeps first and then runs more commands lasts at least its sleep.
	Seconds int64
	// Form says how the duration was read, or why it is unknown.
	Form string
}

// Forms of a known preStop.
const (
	// FormNone is a container without a preStop.
	FormNone = "no preStop"
	// FormSleepAction is the lifecycle sleep action.
	FormSleepAction = "sleep action"
	// FormExecSleep is an exec of a sleep binary.
	FormExecSleep = "exec sleep"
	// FormShellSleep is a shell command that starts with a sleep.
	FormShellSleep = "shell command starting with sleep"
)

// Read returns the duration of the container's preStop hook.
func Read(container *yaml.RNode) Duration {
	h := hook.Get(container, hook.PreStop)
	if h == nil {
		return Duration{Known: true, Form: FormNone}
	}
	if s, ok := hook.SleepAction(container, hook.PreStop); ok {
		return Duration{Present: true, Known: s >= 0, Seconds: max(s, 0), Form: FormSleepAction}
	}
	cmd, ok := hook.Exec(container, hook.PreStop)
	if !ok {
		return Duration{Present: true, Form: handlerName(h)}
	}
	d := Command(cmd)
	d.Present = true
	return d
}

// handlerName names the handler of a hook the function cannot time.
func handlerName(h *yaml.RNode) string {
	for _, name := range []string{"httpGet", "tcpSocket", "sleep", "exec"} {
		if f := h.Field(name); f != nil {
			return name
		}
	}
	return "unrecognised handler"
}

// shells are the shells whose -c script is read.
var shells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true}

// Command returns the duration of an exec preStop command: `sleep N` (any
// path), or a shell (sh, bash, ash, dash, any path) whose -c script starts
// with `sleep N`.
func Command(cmd []string) Duration {
	unknown := Duration{Form: "exec " + strconv.Quote(strings.Join(cmd, " "))}
	if len(cmd) == 0 {
		return unknown
	}
	if s, ok := sleepArgs(cmd); ok {
		return Duration{Known: true, Seconds: s, Form: FormExecSleep}
	}
	if !shells[path.Base(cmd[0])] {
		return unknown
	}
	script, ok := shellScript(cmd[1:])
	if !ok {
		return unknown
	}
	first, ok := firstCommand(script)
	if !ok {
		return unknown
	}
	if s, ok := sleepArgs(first); ok {
		return Duration{Known: true, Seconds: s, Form: FormShellSleep}
	}
	return unknown
}

// sleepArgs returns the seconds of `sleep ARG...`: GNU and BusyBox sleep
// add up their arguments, each a non-negative number with an optional
// suffix s, m, h or d. A fraction rounds up to whole seconds; a sum past
// the int64 limit is the limit.
func sleepArgs(cmd []string) (int64, bool) {
	if len(cmd) < 2 || path.Base(cmd[0]) != "sleep" {
		return 0, false
	}
	var total int64
	for _, a := range cmd[1:] {
		s, ok := sleepArg(a)
		if !ok {
			return 0, false
		}
		total = add(total, s)
	}
	return total, true
}

// units are the suffixes sleep accepts, in seconds.
var units = map[byte]int64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}

func sleepArg(a string) (int64, bool) {
	unit := int64(1)
	if n := len(a); n > 0 {
		if u, ok := units[a[n-1]]; ok {
			a, unit = a[:n-1], u
		}
	}
	whole, fraction, dotted := strings.Cut(a, ".")
	if whole == "" && fraction == "" || !digits(whole) || !digits(fraction) {
		return 0, false
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil && whole != "" {
		return math.MaxInt64, true // past the limit
	}
	seconds := mul(n, unit)
	if dotted && strings.Trim(fraction, "0") != "" {
		f, _ := strconv.ParseFloat("0."+fraction, 64)
		seconds = add(seconds, int64(math.Ceil(f*float64(unit))))
	}
	return seconds, true
}

func digits(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

func add(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// shellScript returns the script of a shell's arguments: the first operand
// after the options, when one of the options is -c (alone or in a cluster
// such as -ec). The options -o and +o take the next argument; long options
// (--norc) take none.
func shellScript(args []string) (string, bool) {
	command := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if command && i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case strings.HasPrefix(a, "--"):
		case (strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) && len(a) > 1:
			if strings.ContainsRune(a[1:], 'c') && a[0] == '-' {
				command = true
			}
			if strings.HasSuffix(a, "o") {
				i++ // -o option-name
			}
		default:
			return a, command
		}
	}
	return "", false
}

// firstCommand returns the words of the script's first command when it runs
// in the foreground: it ends at the end of the script, a newline, `;`,
// `&&` or `||`. A first command with any other shell syntax (a pipe, a
// background `&`, quotes, expansions, redirections) is not read.
func firstCommand(script string) ([]string, bool) {
	s := strings.TrimLeft(script, " \t\n")
	end := len(s)
	for _, sep := range []string{"\n", ";", "&&", "||"} {
		if i := strings.Index(s, sep); i >= 0 && i < end {
			end = i
		}
	}
	first := s[:end]
	if strings.ContainsAny(first, "|&<>()`$'\"\\{}*?[]#=") {
		return nil, false
	}
	words := strings.Fields(first)
	return words, len(words) > 0
}
