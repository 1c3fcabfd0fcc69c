package preset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestWebhooksAsRendered: each entry's webhooks are the ones its vendor's
// chart renders with default values (testdata/webhooks/<entry>.yaml, each
// with the commit and helm command it came from): the same names, in the
// same order, with the same namespace and object selectors.
func TestWebhooksAsRendered(t *testing.T) {
	files, _ := filepath.Glob("testdata/webhooks/*.yaml")
	if len(files) == 0 {
		t.Fatal("no rendered webhook configurations")
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
		var rendered []WebhookFact
		if err := json.Unmarshal(raw, &rendered); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var catalog []WebhookFact
		for _, w := range p.Injector.Webhooks {
			w.Values, w.Source = "", ""
			catalog = append(catalog, w)
		}
		if !reflect.DeepEqual(catalog, rendered) {
			got, _ := json.Marshal(catalog)
			t.Errorf("%s: the catalog's webhooks\n%s\nare not the rendered ones\n%s", name, got, raw)
		}
	}
}
