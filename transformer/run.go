package transformer

import (
	"fmt"
	"io"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// Process is the kpt function SDK processor: it loads the functionConfig,
// transforms the items and sets the results. It reports failure when any
// result is an error; the items are then left as they were.
func Process(rl *fn.ResourceList) (bool, error) {
	var cfgNode *yaml.RNode
	if rl.FunctionConfig != nil && !rl.FunctionConfig.IsEmpty() {
		cfgNode = rl.FunctionConfig.CopyToResourceNode()
	}
	cfg, err := config.Load(cfgNode)
	if err != nil {
		rl.Results = append(rl.Results, ConfigResults(err)...)
		return false, nil
	}
	items := make([]*yaml.RNode, len(rl.Items))
	for i, obj := range rl.Items {
		items[i] = obj.CopyToResourceNode()
	}
	out, results := New(cfg).Transform(items)
	rl.Results = append(rl.Results, results...)
	for i := range out {
		if out[i] != items[i] {
			rl.Items[i] = fn.MoveToKubeObject(out[i])
		}
	}
	for _, r := range results {
		if r.Severity == fn.Error {
			return false, nil
		}
	}
	return true, nil
}

// Run is RunReport without the diagnostics.
func Run(r io.Reader, w io.Writer) error {
	_, err := RunReport(r, w)
	return err
}

// RunReport reads a ResourceList from r, transforms it and writes it to w. Input
// that is not a ResourceList is an error and nothing is written. Error
// results are written with the unchanged items and returned as ErrResults.
//
// Run streams: the items are split textually, then parsed, edited and
// encoded on every core (see runStream). Input the splitter does not take
// with certainty goes through the whole-list path; both write the same bytes.
// While it streams, Run raises the garbage collector's target for the whole
// process (stream.TuneGC) unless GOGC or GOMEMLIMIT is set; a program that
// embeds it and cares can set either.
//
// RunReport returns every warning and error result as a Diagnostic, in the
// order of the results, whether the run failed or not.
func RunReport(r io.Reader, w io.Writer) ([]Diagnostic, error) {
	in, err := stream.Read(r, stream.Options{Mark: mayNameNamespace, MemoryLimit: spoolLimit})
	if err != nil {
		return nil, fmt.Errorf("reading input: %w", err)
	}
	defer in.Close()
	var diags []Diagnostic
	if done, err := runStream(in, w, &diags); done {
		return diags, err
	}
	data, err := in.Bytes()
	if err != nil {
		return nil, fmt.Errorf("reading input: %w", err)
	}
	err = runWhole(data, w, &diags)
	return diags, err
}
