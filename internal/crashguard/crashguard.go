// Package crashguard keeps a fatal runtime error short. Go prints every
// goroutine's stack when the runtime fails (out of memory above all), and
// no setting turns that off for runtime errors: a CI log then holds
// thousands of lines where one would do. Guard runs the program as a child
// process whose standard error passes through the parent, which writes the
// child's lines as they come, and of a crash report of the runtime one line,
// prefixed, without the stacks (see Filter).
package crashguard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
)

// childEnv marks the child process.
const childEnv = "SIDECAR_LIFECYCLE_GUARDED"

// Guard returns at once in the child, or when GOTRACEBACK is set (whoever
// sets it wants the stacks), or when the child cannot be started. Otherwise
// it runs the program again as a child with the same arguments, standard
// input and output, forwards interrupts to it, filters its standard error
// (see Filter) and exits with its exit code; exit code 1 when it crashed or
// was killed, with one line on standard error saying so.
func Guard(prefix string) {
	if os.Getenv(childEnv) != "" || os.Getenv("GOTRACEBACK") != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		signal.Stop(signals)
		return
	}
	go func() {
		for s := range signals {
			cmd.Process.Signal(s)
		}
	}()
	crashed := Filter(stderr, os.Stderr, prefix)
	os.Exit(exitCode(cmd.Wait(), crashed, os.Stderr, prefix))
}

// exitCode is the child's exit code; 1, with a line on w, when a signal
// ended it; 1 when it crashed. A child that SIGPIPE ended wrote to a pipe
// whose reader was gone (`... | head -1`): that is no failure to report,
// and the exit code is the one a shell gives such a program, 128 + 13.
func exitCode(err error, crashed bool, w io.Writer, prefix string) int {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", prefix, err)
			return 1
		}
		return 0
	}
	if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		if status.Signal() == syscall.SIGPIPE {
			return 128 + int(syscall.SIGPIPE)
		}
		why := ""
		if status.Signal() == syscall.SIGKILL {
			why = " (the system may have run out of memory)"
		}
		fmt.Fprintf(w, "%s: stopped by signal %q%s\n", prefix, status.Signal().String(), why)
		return 1
	}
	if crashed {
		return 1
	}
	return exit.ExitCode()
}

// Filter copies lines from r to w until a Go crash report is certain, then
// writes one line for it, prefix and the report's "fatal error" line or
// else its first line, and drops the rest. It reports whether there was a
// crash.
//
// A crash report, as the Go runtime writes it when GOTRACEBACK is unset,
// is a head and then a stack dump. The head is a start line (see
// crashStart) followed by the lines the runtime writes between it and the
// dump: more start lines, blank lines, lines that begin with a tab (a
// panic value's further lines, a nested panic), "[signal ...]",
// "PC=...", "signal arrived during cgo execution" and "instruction
// bytes:". The dump begins with a goroutine header ("goroutine 1
// [running]:") or "runtime stack:". A "panic: " line at the start of a
// line begins a head of its own: the runtime writes nothing before it. So
//
//	runtime: goroutine stack exceeds 1000000000-byte limit
//	runtime: sp=0xc020160398 stack=[0xc020160000, 0xc040160000]
//	fatal error: stack overflow
//
//	runtime stack:
//
// becomes "prefix: fatal error: stack overflow (...)". Lines that could
// begin a head are held back until a line shows whether a dump follows;
// when another line comes instead, or the input ends, they are written as
// they were: the program's own lines that start like a head are never
// lost, only delayed to its next line. The one case read wrongly is a line
// of the program's own that starts like a head ("runtime: ") written just
// before a real crash report that does not start with "panic: " (a fatal
// error, a signal): it is dropped with that report's head.
func Filter(r io.Reader, w io.Writer, prefix string) (crashed bool) {
	br := bufio.NewReader(r)
	var head []string // lines held back: the head of a crash report, perhaps
	for {
		line, err := br.ReadString('\n')
		switch {
		case line == "":
		case len(head) > 0 && dumpStart(line):
			fmt.Fprintf(w, "%s: %s (stacks not shown: set GOTRACEBACK=all to see them)\n", prefix, printable(summary(head)))
			io.Copy(io.Discard, br)
			return true
		case strings.HasPrefix(line, "panic: "):
			writeLines(w, head)
			head = []string{line}
		case crashStart(line) || len(head) > 0 && inHead(line):
			head = append(head, line)
		default:
			writeLines(w, head)
			head = nil
			io.WriteString(w, line)
		}
		if err != nil {
			writeLines(w, head)
			return false
		}
	}
}

// crashStart reports whether line can start a Go crash report: "panic: ",
// "fatal error: ", "runtime: ", "runtime/cgo: ", "unexpected fault
// address ", or the name of a signal that crashes a Go program
// ("SIGSEGV: ").
func crashStart(line string) bool {
	for _, p := range []string{"panic: ", "fatal error: ", "runtime: ", "runtime/cgo: ", "unexpected fault address ",
		"SIGSEGV: ", "SIGBUS: ", "SIGFPE: ", "SIGILL: ", "SIGABRT: ", "SIGTRAP: ", "SIGQUIT: ", "SIGSYS: "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// inHead reports whether line, not a start line, is one the runtime writes
// in a crash report's head.
func inHead(line string) bool {
	if line == "\n" || strings.HasPrefix(line, "\t") {
		return true
	}
	for _, p := range []string{"[signal ", "PC=", "signal arrived during cgo execution", "instruction bytes:"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// goroutineHeader is the first line of a goroutine's stack in a dump:
// "goroutine 1 [running]:", or with GOTRACEBACK=system "goroutine 1
// gp=0xc000002380 m=0 mp=0x5a5e20 [running]:".
var goroutineHeader = regexp.MustCompile(`^goroutine [0-9]+ .*\]:\n?$`)

// dumpStart reports whether line begins the stack dump of a crash report.
func dumpStart(line string) bool {
	return line == "runtime stack:\n" || goroutineHeader.MatchString(line)
}

// summary is the line that stands for a crash report's head: its "fatal
// error" line, which may follow the panics it happened in, or else its
// first line.
func summary(head []string) string {
	for _, line := range head {
		if l := strings.TrimPrefix(line, "\t"); strings.HasPrefix(l, "fatal error: ") {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(head[0])
}

// writeLines writes the lines to w.
func writeLines(w io.Writer, lines []string) {
	for _, line := range lines {
		io.WriteString(w, line)
	}
}

// printable replaces control characters, which a panic value may hold.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7F || r >= 0x80 && r < 0xA0 {
			return '?'
		}
		return r
	}, s)
}
