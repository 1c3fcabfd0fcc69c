// Command bench measures the function binary against a kyaml identity round
// trip (bench/identity: kio.ByteReadWriter read and write, no edit) on
// generated ResourceLists of several sizes, in the same run, and prints wall
// time, CPU time (user+sys) and peak RSS of each and their ratio. Each size
// is run in each of -formats: lf (YAML as kustomize and kpt write it), crlf
// (the same with CRLF line breaks) and json (the same list as JSON on one
// line); the last column is the function's peak RSS over its RSS on the lf
// list of the same size.
//
//	go run ./bench -function bin/sidecar-lifecycle -identity bin/kyaml-identity -sizes 1,50,1000,10000
//
// With -table it instead prints the performance table of
// docs/performance.md: 10,000 workloads against the identity round trip,
// 2,000 against a bare yaml.v3 decode and encode (bench/yamlv3), a
// realistic mix of workloads, large CRDs, Services and ConfigMaps as a
// ResourceList and as a plain stream, and the peak RSS on one 50 MiB
// ConfigMap and one 50 MiB Deployment.
//
// With -big-mib N it instead runs the function once on a generated list of
// about N MiB (the identity round trip would need tens of GiB) and reports
// the same numbers; with -declines as well, the list is made of the item
// shapes the streaming path parses with their neighbours or mends (see
// corpus.WriteDeclines), whose peak RSS must stay that of a few items.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
)

func main() {
	function := flag.String("function", "bin/sidecar-lifecycle", "the function binary")
	identity := flag.String("identity", "bin/kyaml-identity", "the kyaml identity round trip binary")
	sizes := flag.String("sizes", "1,50,1000,10000", "comma-separated workload counts")
	runs := flag.Int("runs", 0, "runs per binary and size; 0 picks by size (21 for tiny lists, 3 for large)")
	dir := flag.String("dir", "", "where to write the generated lists (default: a temporary directory)")
	stdin := flag.String("stdin", "pipe", "how the binaries get the list: pipe (as kustomize and kpt do) or file")
	bigMiB := flag.Int("big-mib", 0, "run the function alone on a generated list of about this many MiB")
	declines := flag.Bool("declines", false, "with -big-mib: a list of the items the streaming path cannot parse alone")
	table := flag.Bool("table", false, "print the performance table (see table.go) instead")
	yamlv3 := flag.String("yamlv3", "bin/yamlv3-identity", "the bare yaml.v3 round trip binary, for -table")
	formats := flag.String("formats", "lf,crlf,json", "comma-separated list formats: lf, crlf, json")
	flag.Parse()
	if *table {
		if err := runTable(*function, *identity, *yamlv3, *dir, *stdin, *runs); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *bigMiB > 0 && *declines {
		if err := bigDeclines(*function, *dir, *stdin, *bigMiB); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*function, *identity, *sizes, *formats, *runs, *dir, *stdin, *bigMiB); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

// writers are the list formats.
var writers = map[string]func(io.Writer, int) error{"lf": corpus.Write, "crlf": corpus.WriteCRLF, "json": corpus.WriteJSON}

func run(function, identity, sizes, formats string, runs int, dir, stdin string, bigMiB int) error {
	if stdin != "pipe" && stdin != "file" {
		return fmt.Errorf("-stdin must be pipe or file, not %q", stdin)
	}
	dir, done, err := workDir(dir)
	if err != nil {
		return err
	}
	defer done()
	fmt.Printf("GOMAXPROCS=%d, NumCPU=%d, load average %s, stdin %s\n\n", runtime.GOMAXPROCS(0), runtime.NumCPU(), loadAverage(), stdin)
	if bigMiB > 0 {
		return big(function, dir, stdin, bigMiB)
	}
	counts, err := parseSizes(sizes)
	if err != nil {
		return err
	}
	names := strings.Split(formats, ",")
	for _, f := range names {
		if writers[f] == nil {
			return fmt.Errorf("unknown format %q in %q: want lf, crlf or json", f, formats)
		}
	}
	fmt.Println("| workloads | format | input | function wall | function cpu | function rss | identity wall | identity cpu | identity rss | wall ratio | cpu ratio | rss ratio | rss vs lf |")
	fmt.Println("| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, n := range counts {
		var lfRSS int64
		for _, format := range names {
			path := filepath.Join(dir, fmt.Sprintf("workloads-%d.%s", n, format))
			size, err := generate(path, n, writers[format])
			if err != nil {
				return err
			}
			r := runs
			if r == 0 {
				r = defaultRuns(n)
			}
			fn, id, err := compare(function, identity, path, stdin, r)
			if err != nil {
				return err
			}
			vsLF := "-"
			if format == "lf" {
				lfRSS = fn.rss
			}
			if lfRSS > 0 {
				vsLF = fmt.Sprintf("%.2f", float64(fn.rss)/float64(lfRSS))
			}
			fmt.Printf("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f | %s |\n", n, format, mib(size),
				fn.wall.Round(time.Millisecond), fn.cpu.Round(time.Millisecond), mib(fn.rss),
				id.wall.Round(time.Millisecond), id.cpu.Round(time.Millisecond), mib(id.rss),
				ratio(fn.wall, id.wall), ratio(fn.cpu, id.cpu), float64(fn.rss)/float64(id.rss), vsLF)
			os.Remove(path)
		}
	}
	fmt.Println("\nMedians over the runs; the binaries alternate so that load on the machine hits both.")
	return nil
}

func defaultRuns(workloads int) int {
	switch {
	case workloads <= 50:
		return 21
	case workloads <= 1000:
		return 7
	}
	return 3
}

// big runs the function once on a list of about mebibytes MiB.
func big(function, dir, stdin string, mebibytes int) error {
	path := filepath.Join(dir, "big.yaml")
	var one strings.Builder
	if err := corpus.Write(&one, 100); err != nil {
		return err
	}
	workloads := int(int64(mebibytes) << 20 / int64(one.Len()) * 100)
	size, err := generate(path, workloads, corpus.Write)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	m, err := measure(function, path, stdin)
	if err != nil {
		return err
	}
	fmt.Printf("%d workloads, %s in, %s out: wall %s, cpu %s, peak RSS %s\n", workloads, mib(size), mib(m.out),
		m.wall.Round(time.Millisecond), m.cpu.Round(time.Millisecond), mib(m.rss))
	return nil
}

// bigDeclines runs the function once on a list of about mebibytes MiB of
// the items the streaming path cannot parse alone (see
// corpus.WriteDeclines), in dir or a temporary directory.
func bigDeclines(function, dir, stdin string, mebibytes int) error {
	dir, done, err := workDir(dir)
	if err != nil {
		return err
	}
	defer done()
	path := filepath.Join(dir, "declines.yaml")
	size, err := generate(path, 0, func(w io.Writer, _ int) error { return corpus.WriteDeclines(w, int64(mebibytes)<<20) })
	if err != nil {
		return err
	}
	defer os.Remove(path)
	m, err := measure(function, path, stdin)
	if err != nil {
		return err
	}
	fmt.Printf("the items the streaming path cannot parse alone, %s in, %s out: wall %s, cpu %s, peak RSS %s\n", mib(size), mib(m.out),
		m.wall.Round(time.Millisecond), m.cpu.Round(time.Millisecond), mib(m.rss))
	return nil
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad size %q in %q: want positive workload counts", f, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// generate writes a corpus of n workloads to path with write and returns
// its size.
func generate(path string, n int, write func(io.Writer, int) error) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = write(w, n)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	st, serr := os.Stat(path)
	if err == nil {
		err = serr
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// measurement is one run of a binary.
type measurement struct {
	wall, cpu, user time.Duration
	rss, out        int64
}

// compare runs both binaries runs times, alternating, and returns the
// median of each measure.
func compare(function, identity, path, stdin string, runs int) (fn, id measurement, err error) {
	var fns, ids []measurement
	for i := 0; i < runs; i++ {
		m, err := measure(identity, path, stdin)
		if err != nil {
			return fn, id, err
		}
		ids = append(ids, m)
		if m, err = measure(function, path, stdin); err != nil {
			return fn, id, err
		}
		fns = append(fns, m)
	}
	return median(fns), median(ids), nil
}

// measure runs the binary with the list on stdin and its output discarded,
// and reads its wall time, CPU time and peak RSS from the process state.
func measure(binary, path, stdin string, args ...string) (measurement, error) {
	f, err := os.Open(path)
	if err != nil {
		return measurement{}, err
	}
	defer f.Close()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = f
	if stdin == "pipe" {
		cmd.Stdin = struct{ io.Reader }{f} // not an *os.File: exec copies it through a pipe
	}
	out := &countWriter{}
	cmd.Stdout = out
	var stderr strings.Builder
	cmd.Stderr = &stderr
	resetPeak()
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return measurement{}, fmt.Errorf("%s < %s: %v\n%s", binary, path, err, stderr.String())
	}
	usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return measurement{}, errors.New("no rusage for the child process on this platform")
	}
	if out.n == 0 {
		return measurement{}, fmt.Errorf("%s wrote nothing", binary)
	}
	cpu := time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
	return measurement{wall: wall, cpu: cpu, user: time.Duration(usage.Utime.Nano()), rss: usage.Maxrss * 1024, out: out.n}, nil
}

// resetPeak returns the benchmark's free memory to the system and resets
// its peak resident set size, where Linux lets it (clear_refs). A child
// starts as a copy of this process's address space until it executes its
// binary, and Linux counts that address space's peak in the child's: the
// inputs generated here would show as the child's peak memory.
func resetPeak() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

func median(ms []measurement) measurement {
	pick := func(key func(measurement) int64) int64 {
		v := make([]int64, len(ms))
		for i, m := range ms {
			v[i] = key(m)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	return measurement{
		wall: time.Duration(pick(func(m measurement) int64 { return int64(m.wall) })),
		cpu:  time.Duration(pick(func(m measurement) int64 { return int64(m.cpu) })),
		user: time.Duration(pick(func(m measurement) int64 { return int64(m.user) })),
		rss:  pick(func(m measurement) int64 { return m.rss }),
		out:  pick(func(m measurement) int64 { return m.out }),
	}
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// workDir is dir, or when it is empty a new temporary directory, with
// what removes it.
func workDir(dir string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "sidecar-lifecycle-bench-")
	if err != nil {
		return "", nil, err
	}
	return tmp, func() { os.RemoveAll(tmp) }, nil
}
