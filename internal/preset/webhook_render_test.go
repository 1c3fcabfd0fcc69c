package preset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// notRendered are the catalog's injectors whose webhook configuration is
// not kept here, and why: their entries hold no webhooks, so the injector
// is taken to see every pod its switches name.
var notRendered = map[string]string{
	"gcs-fuse":                "the webhook is installed by GKE, not by a chart",
	"opentelemetry-collector": "the operator's chart lives in open-telemetry/opentelemetry-helm-charts, not kept here",
}

// TestWebhooksAsRendered: each entry's webhooks are the ones its vendor's
// chart renders with default values (testdata/webhooks/<entry>.yaml, each
// with the commit and helm command it came from): the same names, in the
// same order, with the same namespace and object selectors. Only the
// webhooks whose rules name pods count: the others mutate the vendor's own
// resources. Every entry with an injector has its rendered configuration,
// unless notRendered says why not.
func TestWebhooksAsRendered(t *testing.T) {
	files, _ := filepath.Glob("testdata/webhooks/*.yaml")
	if len(files) == 0 {
		t.Fatal("no rendered webhook configurations")
	}
	for _, p := range Catalog() {
		if p.Injector == nil {
			continue
		}
		_, err := os.Stat(filepath.Join("testdata/webhooks", p.Name+".yaml"))
		why, excused := notRendered[p.Name]
		switch {
		case err != nil && !excused:
			t.Errorf("%s: an injector with no rendered webhook configuration in testdata/webhooks", p.Name)
		case err == nil && excused:
			t.Errorf("%s: rendered in testdata/webhooks, yet notRendered says %q", p.Name, why)
		case excused && len(p.Injector.Webhooks) > 0:
			t.Errorf("%s: webhooks in the catalog with no rendered configuration to hold them to", p.Name)
		}
	}
	for _, file := range files {
		name := filepath.Base(file[:len(file)-len(".yaml")])
		p, ok := Lookup(name)
		if !ok || p.Injector == nil {
			t.Errorf("%s: no entry with an injector", file)
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		node, err := yaml.Parse(string(data))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		list, err := node.Pipe(yaml.Lookup("webhooks"))
		if err != nil || list == nil {
			t.Fatalf("%s: no webhooks", file)
		}
		raw, err := list.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var all []renderedWebhook
		if err := json.Unmarshal(raw, &all); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var rendered []WebhookFact
		for _, w := range all {
			if w.onPods() {
				rendered = append(rendered, w.WebhookFact)
			}
		}
		if len(rendered) == 0 {
			t.Errorf("%s: no webhook on pods", file)
		}
		var catalog []WebhookFact
		for _, w := range p.Injector.Webhooks {
			w.Values, w.Source = "", ""
			catalog = append(catalog, w)
		}
		if !reflect.DeepEqual(catalog, rendered) {
			got, _ := json.Marshal(catalog)
			want, _ := json.Marshal(rendered)
			t.Errorf("%s: the catalog's webhooks\n%s\nare not the rendered ones on pods\n%s", name, got, want)
		}
	}
}

// renderedWebhook is a webhook of a rendered configuration, with the
// resources its rules name.
type renderedWebhook struct {
	WebhookFact
	Rules []struct {
		Resources []string `json:"resources"`
	} `json:"rules"`
}

// onPods reports whether one of the webhook's rules names pods.
func (w renderedWebhook) onPods() bool {
	for _, r := range w.Rules {
		if slices.Contains(r.Resources, "pods") {
			return true
		}
	}
	return false
}
