// Package crashguard keeps a fatal runtime error short. Go prints every
// goroutine's stack when the runtime fails (out of memory above all), and
// no setting turns that off for runtime errors: a CI log then holds
// thousands of lines where one would do. Guard runs the program as a child
// process whose standard error passes through the parent, which writes the
// child's lines as they come until the runtime starts a crash report, then
// writes that report's first line, prefixed, and drops the stacks.
package crashguard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
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
// ended it; 1 when it crashed.
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

// Filter copies lines from r to w until a line starts a Go crash report
// (see crashStart), then writes one line, prefix and the report's "fatal
// error" line or else its first line, and drops the rest. It reports
// whether there was a crash.
func Filter(r io.Reader, w io.Writer, prefix string) (crashed bool) {
	br := bufio.NewReader(r)
	var first string
	for {
		line, err := br.ReadString('\n')
		switch {
		case line == "":
		case first == "" && crashStart(line):
			first = line
		case first == "":
			io.WriteString(w, line)
		case strings.HasPrefix(line, "fatal error: ") && !strings.HasPrefix(first, "fatal error: "):
			first = line
		}
		if err != nil {
			break
		}
	}
	if first == "" {
		return false
	}
	fmt.Fprintf(w, "%s: %s (stacks not shown: set GOTRACEBACK=all to see them)\n", prefix, printable(strings.TrimSpace(first)))
	return true
}

// crashStart reports whether line starts a Go crash report: "panic: ",
// "fatal error: ", "runtime: ", "runtime/cgo: ", or a signal that crashes
// a Go program ("SIGSEGV: ").
func crashStart(line string) bool {
	for _, p := range []string{"panic: ", "fatal error: ", "runtime: ", "runtime/cgo: ",
		"SIGSEGV: ", "SIGBUS: ", "SIGFPE: ", "SIGILL: ", "SIGABRT: ", "SIGTRAP: ", "SIGQUIT: ", "SIGSYS: "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
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
