package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
)

// runTable prints the performance table of docs/performance.md: each row
// one input, the function against its baseline in the same run
// (alternating runs, medians), or the function's peak RSS against the
// input's size.
func runTable(function, identity, yamlv3, dir, stdin string, runs int) error {
	dir, done, err := workDir(dir)
	if err != nil {
		return err
	}
	defer done()
	if runs == 0 {
		runs = 3
	}
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(corpus.FunctionConfig), 0o644); err != nil {
		return err
	}
	fmt.Printf("GOMAXPROCS=%d, NumCPU=%d, load average %s, stdin %s, %d runs each\n\n", runtime.GOMAXPROCS(0), runtime.NumCPU(), loadAverage(), stdin, runs)
	fmt.Println("| input | size | measure | function | baseline | ratio | goal |")
	fmt.Println("| :--- | ---: | :--- | ---: | ---: | ---: | ---: |")
	mix := corpus.Mix{Workloads: 2000, CRDs: 20, Others: 6000}
	published, err := corpus.Published(corpus.PublishedDirs()...)
	if err != nil {
		return fmt.Errorf("reading the published manifests (run from the module root): %w", err)
	}
	inputs := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"workloads-10000", func(w io.Writer) error { return corpus.Write(w, 10000) }},
		{"workloads-10000-zero-config", func(w io.Writer) error { return corpus.WriteZeroConfig(w, 10000) }},
		{"workloads-2000", func(w io.Writer) error { return corpus.Write(w, 2000) }},
		{"mix", func(w io.Writer) error { return corpus.WriteMix(w, mix) }},
		{"mix-plain", func(w io.Writer) error { return corpus.WritePlain(w, mix) }},
		{"configmap-50mib", func(w io.Writer) error { return corpus.WriteBigConfigMap(w, 50<<20) }},
		{"deployment-50mib", func(w io.Writer) error { return corpus.WriteBigDeployment(w, 50<<20) }},
		{"published", func(w io.Writer) error { return corpus.WritePublished(w, published, 16<<20) }},
		{"published-plain", func(w io.Writer) error { return corpus.WritePublishedPlain(w, published, 16<<20) }},
	}
	paths, sizes := map[string]string{}, map[string]int64{}
	for _, in := range inputs {
		path := filepath.Join(dir, in.name+".yaml")
		size, err := generate(path, 0, func(w io.Writer, _ int) error { return in.write(w) })
		if err != nil {
			return err
		}
		paths[in.name], sizes[in.name] = path, size
	}
	fn := func(name string, args ...string) func() (measurement, error) {
		return func() (measurement, error) { return measure(function, paths[name], stdin, args...) }
	}
	base := func(binary, name string) func() (measurement, error) {
		return func() (measurement, error) { return measure(binary, paths[name], stdin) }
	}
	row := func(input, name, what string, f, b measurement, pick func(measurement) int64, show func(int64) string, goal string) {
		fmt.Printf("| %s | %s | %s | %s | %s | %.2f× | %s |\n", input, mib(sizes[name]), what,
			show(pick(f)), show(pick(b)), float64(pick(f))/float64(pick(b)), goal)
	}
	wall := func(m measurement) int64 { return int64(m.wall) }
	user := func(m measurement) int64 { return int64(m.user) }
	rss := func(m measurement) int64 { return m.rss }
	showTime := func(n int64) string { return time.Duration(n).Round(time.Millisecond).String() }

	f, b, err := paired(runs, fn("workloads-10000"), base(identity, "workloads-10000"))
	if err != nil {
		return err
	}
	row("10,000 workloads, vs kyaml identity", "workloads-10000", "wall", f, b, wall, showTime, "≤ 0.40×")
	row("10,000 workloads, vs kyaml identity", "workloads-10000", "peak RSS", f, b, rss, mib, "≤ 100 MiB")
	if f, b, err = paired(runs, fn("workloads-10000-zero-config"), base(identity, "workloads-10000-zero-config")); err != nil {
		return err
	}
	row("the same with no functionConfig (zero config), vs kyaml identity", "workloads-10000-zero-config", "wall", f, b, wall, showTime, "≤ 0.40×")
	row("the same with no functionConfig (zero config), vs kyaml identity", "workloads-10000-zero-config", "peak RSS", f, b, rss, mib, "≤ 100 MiB")
	if f, b, err = paired(runs, fn("workloads-2000"), base(yamlv3, "workloads-2000")); err != nil {
		return err
	}
	row("2,000 workloads, vs bare yaml.v3 decode+encode", "workloads-2000", "user CPU", f, b, user, showTime, "≤ 0.90×")
	if f, b, err = paired(runs, fn("mix"), base(identity, "mix")); err != nil {
		return err
	}
	row("mix: 2,000 workloads, 20 CRDs of 1 MiB, 6,000 Services and ConfigMaps, vs kyaml identity", "mix", "wall", f, b, wall, showTime, "≤ 0.25×")
	if f, b, err = paired(runs, fn("mix-plain", "--config", cfg), base(identity, "mix")); err != nil {
		return err
	}
	row("the mix as a plain stream (--config), vs kyaml identity on the mix", "mix-plain", "wall", f, b, wall, showTime, "")
	if f, b, err = paired(runs, fn("published"), base(identity, "published")); err != nil {
		return err
	}
	label := fmt.Sprintf("the vendors' published manifests (%d files) repeated to 16 MiB, vs kyaml identity", len(published))
	row(label, "published", "wall", f, b, wall, showTime, "≤ 0.30×")
	row(label, "published", "peak RSS", f, b, rss, mib, "≤ 100 MiB")
	if f, b, err = paired(runs, fn("published-plain", "--config", cfg), base(identity, "published")); err != nil {
		return err
	}
	label = "the same as a plain stream (--config), vs kyaml identity on the list"
	row(label, "published-plain", "wall", f, b, wall, showTime, "≤ 0.30×")
	row(label, "published-plain", "peak RSS", f, b, rss, mib, "≤ 100 MiB")
	for _, big := range []struct{ name, label, goal string }{
		{"configmap-50mib", "one 50 MiB ConfigMap item", "≤ 125 MiB"},
		{"deployment-50mib", "one 50 MiB Deployment item", "≤ 300 MiB"},
	} {
		rss, err := worstRSS(max(runs, 5), fn(big.name))
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %s | peak RSS, worst of %d | %s | input %s | %.2f× | %s |\n", big.label, mib(sizes[big.name]), max(runs, 5), mib(rss), mib(sizes[big.name]), float64(rss)/float64(sizes[big.name]), big.goal)
	}
	fmt.Println("\nMedians over the runs; the function and its baseline alternate so that load on the machine hits both.")
	return nil
}

// paired runs a and b runs times, alternating, and returns the median of
// each measure.
func paired(runs int, a, b func() (measurement, error)) (measurement, measurement, error) {
	var as, bs []measurement
	for i := 0; i < runs; i++ {
		mb, err := b()
		if err != nil {
			return measurement{}, measurement{}, err
		}
		ma, err := a()
		if err != nil {
			return measurement{}, measurement{}, err
		}
		as, bs = append(as, ma), append(bs, mb)
	}
	return median(as), median(bs), nil
}

// worstRSS runs a runs times and returns the largest peak RSS: a memory
// bound holds in every run, whenever the collector happens to run.
func worstRSS(runs int, a func() (measurement, error)) (int64, error) {
	var worst int64
	for i := 0; i < runs; i++ {
		m, err := a()
		if err != nil {
			return 0, err
		}
		worst = max(worst, m.rss)
	}
	return worst, nil
}
