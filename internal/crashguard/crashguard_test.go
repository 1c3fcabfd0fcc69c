package crashguard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var sink []byte

// TestMain is also the guarded program of the tests, as CRASHGUARD_TEST
// says.
func TestMain(m *testing.M) {
	switch os.Getenv("CRASHGUARD_TEST") {
	case "out-of-memory":
		Guard("prog")
		fmt.Fprintln(os.Stderr, "prog: before the crash")
		sink = make([]byte, 1<<47) // more than the address space: the runtime fails
		sink[0] = 1
		os.Exit(0)
	case "exit-3":
		Guard("prog")
		io.Copy(os.Stdout, os.Stdin)
		fmt.Fprintln(os.Stderr, "prog: a line of its own")
		os.Exit(3)
	case "own-runtime-lines":
		Guard("prog")
		fmt.Fprintln(os.Stderr, "runtime: a line of its own")
		fmt.Fprintln(os.Stderr, "prog: a line that says runtime: in it")
		fmt.Fprintln(os.Stderr, "runtime: one more, right before the crash")
		var missing *struct{ n int }
		fmt.Println(missing.n) // a nil pointer: the runtime panics
	case "broken-pipe":
		Guard("prog")
		line := []byte(strings.Repeat("y", 1023) + "\n")
		for {
			os.Stdout.Write(line)
		}
	case "killed":
		Guard("prog")
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			self.Kill()
		}
		select {}
	}
	os.Exit(m.Run())
}

// program runs this test binary as the program of the given test case.
func program(t *testing.T, name, stdin string, env ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(withoutTraceback(), append(env, "CRASHGUARD_TEST="+name)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

func withoutTraceback() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOTRACEBACK=") {
			env = append(env, kv)
		}
	}
	return env
}

// TestGuardOutOfMemory: the runtime running out of memory is one line,
// after the program's own, and exit code 1; with GOTRACEBACK set the stacks
// are there, as they would be without the guard.
func TestGuardOutOfMemory(t *testing.T) {
	code, _, stderr := program(t, "out-of-memory", "")
	want := "prog: before the crash\nprog: fatal error: out of memory (stacks not shown: set GOTRACEBACK=all to see them)\n"
	if code != 1 || stderr != want {
		t.Errorf("exit code %d, stderr:\n%s\nwant exit code 1 and:\n%s", code, stderr, want)
	}
	code, _, stderr = program(t, "out-of-memory", "", "GOTRACEBACK=single")
	if code == 0 || !strings.Contains(stderr, "goroutine ") {
		t.Errorf("with GOTRACEBACK set: exit code %d, stderr without stacks:\n%s", code, stderr)
	}
}

// TestGuardOwnRuntimeLines: the program's own lines that begin like a
// crash report, or hold its words, pass through; the real crash after them
// (a nil pointer dereference) is one line.
func TestGuardOwnRuntimeLines(t *testing.T) {
	code, _, stderr := program(t, "own-runtime-lines", "")
	want := "runtime: a line of its own\nprog: a line that says runtime: in it\nruntime: one more, right before the crash\n" +
		"prog: panic: runtime error: invalid memory address or nil pointer dereference (stacks not shown: set GOTRACEBACK=all to see them)\n"
	if code != 1 || stderr != want {
		t.Errorf("exit code %d, stderr:\n%s\nwant exit code 1 and:\n%s", code, stderr, want)
	}
}

// TestGuardPassesThrough: standard input and output reach the child, its
// own stderr lines pass, and its exit code is the program's.
func TestGuardPassesThrough(t *testing.T) {
	code, stdout, stderr := program(t, "exit-3", "hello\n")
	if code != 3 || stdout != "hello\n" || stderr != "prog: a line of its own\n" {
		t.Errorf("exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestGuardKilled: a child killed by SIGKILL, as the kernel kills on out of
// memory, is one line saying so, and exit code 1.
func TestGuardKilled(t *testing.T) {
	code, _, stderr := program(t, "killed", "")
	want := "prog: stopped by signal \"killed\" (the system may have run out of memory)\n"
	if code != 1 || stderr != want {
		t.Errorf("exit code %d, stderr %q; want 1, %q", code, stderr, want)
	}
}

func TestFilter(t *testing.T) {
	in := "prog: one\nruntime: out of memory: cannot allocate\nfatal error: out of memory\x1b[31m\n\ngoroutine 1 [running]:\nmain.main()\n"
	var out bytes.Buffer
	if !Filter(strings.NewReader(in), &out, "prog") {
		t.Error("no crash seen")
	}
	if want := "prog: one\nprog: fatal error: out of memory?[31m (stacks not shown: set GOTRACEBACK=all to see them)\n"; out.String() != want {
		t.Errorf("Filter wrote %q, want %q", out.String(), want)
	}
	out.Reset()
	cgo := "prog: one\nruntime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\nPC=0x7f\n\ngoroutine 0 [idle]:\n"
	if !Filter(strings.NewReader(cgo), &out, "prog") ||
		out.String() != "prog: one\nprog: runtime/cgo: pthread_create failed: Resource temporarily unavailable (stacks not shown: set GOTRACEBACK=all to see them)\n" {
		t.Errorf("Filter wrote %q", out.String())
	}
	out.Reset()
	if !Filter(strings.NewReader("SIGSEGV: segmentation violation\nPC=0x1\n\ngoroutine 0 [idle]:\n"), &out, "prog") || !strings.HasPrefix(out.String(), "prog: SIGSEGV: segmentation violation (") {
		t.Errorf("Filter wrote %q", out.String())
	}
	out.Reset()
	if Filter(strings.NewReader("prog: a\nSIGNAL: not a crash\nno newline"), &out, "prog") || out.String() != "prog: a\nSIGNAL: not a crash\nno newline" {
		t.Errorf("Filter without a crash wrote %q", out.String())
	}
}

// TestFilterOwnLines: lines that start like a crash report but are not
// followed by a stack dump are the program's own and pass through as they
// were.
func TestFilterOwnLines(t *testing.T) {
	for _, in := range []string{
		"runtime: a line of its own\nprog: the next line\n",
		"prog: a message that says runtime: here\nprog: and fatal error: there\n",
		"runtime: the last line\n",
		"runtime: the last line, without a line break",
		"runtime: one\nruntime: two\n\tindented\n\nprog: three\n",
		"panic: words of its own\n\tindented\nprog: more\n",
		"fatal error: words of its own\n[signal of its own]\nPC=its own\n",
		"SIGSEGV: words of its own\nprog: more\n",
		"goroutine 1 [running]:\nmain.main()\n",
	} {
		var out bytes.Buffer
		if Filter(strings.NewReader(in), &out, "prog") || out.String() != in {
			t.Errorf("Filter(%q) wrote %q", in, out.String())
		}
	}
}

// TestFilterCrashAfterOwnLines: a crash report after the program's own
// lines that look like one is one line, and those lines pass through.
func TestFilterCrashAfterOwnLines(t *testing.T) {
	const note = " (stacks not shown: set GOTRACEBACK=all to see them)\n"
	for _, tc := range []struct{ in, want string }{{
		"runtime: its own\nprog: next\npanic: boom\n\tsecond line\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a11bc]\n\ngoroutine 1 [running]:\nmain.main()\n",
		"runtime: its own\nprog: next\nprog: panic: boom" + note,
	}, {
		"runtime: its own\npanic: boom [recovered, repanicked]\n\ngoroutine 1 [running]:\n",
		"runtime: its own\nprog: panic: boom [recovered, repanicked]" + note,
	}, {
		"prog: a\npanic: first [recovered]\n\tfatal error: concurrent map writes\n\ngoroutine 19 [running]:\n",
		"prog: a\nprog: fatal error: concurrent map writes" + note,
	}, {
		"runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=0xc020160398 stack=[0xc020160000, 0xc040160000]\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw()\n",
		"prog: fatal error: stack overflow" + note,
	}, {
		"unexpected fault address 0x7f\nfatal error: fault\n[signal SIGSEGV: segmentation violation code=0x2 addr=0x7f pc=0x1]\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0x5a5e20 [running]:\n",
		"prog: fatal error: fault" + note,
	}} {
		var out bytes.Buffer
		if !Filter(strings.NewReader(tc.in), &out, "prog") || out.String() != tc.want {
			t.Errorf("Filter(%q) wrote %q, want %q", tc.in, out.String(), tc.want)
		}
	}
}

// TestGuardBrokenPipe: a program whose output reader goes away (`prog |
// head -1`) ends quietly with exit code 141, as a shell reports a program
// that SIGPIPE ended, not with a line about a signal.
func TestGuardBrokenPipe(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(withoutTraceback(), "CRASHGUARD_TEST=broken-pipe")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 1024)
	if _, err := io.ReadFull(stdout, first); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 141 || errOut.Len() > 0 {
		t.Errorf("exit code %d, stderr %q: want 141 and nothing", code, errOut.String())
	}
}
