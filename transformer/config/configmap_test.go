package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestConfigMapAsStrictAsSidecarLifecycle: each key of the ConfigMap form,
// given each wrong and each right value of its field's kind, gets the
// verdict and the messages its field gets in a SidecarLifecycle, named by
// the key.
func TestConfigMapAsStrictAsSidecarLifecycle(t *testing.T) {
	verdicts := map[bool]int{}
	for _, k := range configMapKeys {
		s := configShape
		for _, name := range strings.Split(strings.ReplaceAll(k.field, "[0]", ""), ".") {
			s = s.byName[name].shape
			if s.kind == kindList {
				s = s.elem
			}
		}
		for _, v := range append(append(wrongValues(s), rightValues(s)...), "null", `""`) {
			base, sidecar := "preset: linkerd", "preset: linkerd, "
			if k.key == "preset" {
				base, sidecar = "sidecar: proxy", "name: proxy, "
			}
			cm := "apiVersion: v1\nkind: ConfigMap\ndata:\n  " + base + "\n  " + k.key + ": " + v + "\n"
			var spec string
			switch field := strings.TrimPrefix(k.field, "spec."); {
			case strings.HasPrefix(field, "sidecars[0]."):
				spec = "  sidecars: [{" + sidecar + strings.TrimPrefix(field, "sidecars[0].") + ": " + v + "}]\n"
			case field == "app.drainDelay":
				spec = "  sidecars: [{" + strings.TrimSuffix(sidecar, ", ") + "}]\n  app: {drainDelay: " + v + "}\n"
			default:
				spec = "  sidecars: [{" + strings.TrimSuffix(sidecar, ", ") + "}]\n  " + field + ": " + v + "\n"
			}
			_, cmErr := LoadBytes([]byte(cm))
			_, slErr := LoadBytes([]byte("apiVersion: " + APIVersion + "\nkind: " + Kind + "\nspec:\n" + spec))
			var cmErrs, slErrs Errors
			errors.As(cmErr, &cmErrs)
			errors.As(slErr, &slErrs)
			for i := range slErrs {
				if key, ok := configMapPaths[slErrs[i].Path]; ok {
					slErrs[i].Path = key
				}
			}
			if fmt.Sprint(cmErrs) != fmt.Sprint(slErrs) || (cmErr == nil) != (slErr == nil) {
				t.Errorf("data.%s: %s: the ConfigMap form says %v, the SidecarLifecycle %v\n%s", k.key, v, cmErr, slErr, spec)
			}
			verdicts[cmErr == nil]++
		}
	}
	if verdicts[true] < 10 || verdicts[false] < 20 {
		t.Errorf("%d values accepted, %d rejected: the cases do not reach both verdicts", verdicts[true], verdicts[false])
	}
}
