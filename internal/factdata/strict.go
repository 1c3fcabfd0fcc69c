// Package factdata reads the data files that hold facts with their
// sources (the load balancers, the kubelet features, the node deadlines).
package factdata

import (
	"encoding/json"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Strict decodes YAML data into v as its JSON form would decode, refusing
// a field v does not have.
func Strict(data []byte, v any) error {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(js, v)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return strict[0]
	}
	return nil
}
