package tables

import (
	"fmt"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
)

// The lines between which docs/configuration.md holds its generated table
// of the fields kubelets serve from some version on.
const (
	KubeletBegin = "<!-- BEGIN kubelet table (generated) -->"
	KubeletEnd   = "<!-- END kubelet table -->"
)

// Kubelets renders the catalog of internal/kubelet/features.yaml: one row
// a field, with when the function writes it, its feature gate and the
// versions at which the gate came, was on by default and went GA, and the
// source they were read in.
func Kubelets(f kubelet.Facts) (string, error) {
	var b strings.Builder
	b.WriteString("| field | the function writes it | feature gate | alpha (off by default) | on by default | GA | source |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, ft := range f.Features {
		source, err := cite(f.Sources, ft.Source)
		if err != nil {
			return "", fmt.Errorf("kubelet features: %s: %v", ft.ID, err)
		}
		row := []string{code(ft.Field), ft.Writes, code(ft.Gate), ft.Alpha, "**" + ft.OnByDefault + "**", ft.GA, source}
		for i := range row {
			row[i] = cell(row[i])
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	return b.String(), nil
}
