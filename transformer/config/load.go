package config

import (
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Load reads a functionConfig: nil or empty, a ConfigMap, or a SidecarLifecycle.
// It decodes strictly, then defaults, then validates. A returned error is an
// Errors list naming each bad field.
func Load(rn *yaml.RNode) (*SidecarLifecycle, error) {
	cfg, err := decode(rn)
	if err != nil {
		return nil, err
	}
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// LoadBytes is Load for YAML text.
func LoadBytes(b []byte) (*SidecarLifecycle, error) {
	if strings.TrimSpace(string(b)) == "" {
		return Load(nil)
	}
	rn, err := yaml.Parse(string(b))
	if err != nil {
		return nil, Errors{{Path: "functionConfig", Message: fmt.Sprintf("is not valid YAML: %v", err)}}
	}
	return Load(rn)
}

func isEmpty(rn *yaml.RNode) bool {
	if rn == nil || rn.YNode() == nil {
		return true
	}
	n := rn.YNode()
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	return (n.Kind == yaml.MappingNode && len(n.Content) == 0) || (n.Kind == yaml.ScalarNode && n.Tag == yaml.NodeTagNull)
}

func decode(rn *yaml.RNode) (*SidecarLifecycle, error) {
	if isEmpty(rn) {
		return &SidecarLifecycle{}, nil
	}
	if rn.YNode().Kind != yaml.MappingNode {
		return nil, Errors{{Path: "functionConfig", Message: "must be a mapping"}}
	}
	if err := checkKeys(rn.YNode()); err != nil {
		var dup *duplicateKeyError
		if errors.As(err, &dup) && dup.path != "" {
			return nil, Errors{{Path: dup.path, Message: fmt.Sprintf("duplicate key %q: remove one", dup.key)}}
		}
		return nil, Errors{{Path: "functionConfig", Message: err.Error()}}
	}
	kind, apiVersion := rn.GetKind(), rn.GetApiVersion()
	switch {
	case kind == "ConfigMap" && (apiVersion == "v1" || apiVersion == ""):
		return decodeConfigMap(rn)
	case kind == Kind && apiVersion == APIVersion:
		return decodeStrict(rn)
	default:
		return nil, Errors{{Path: "functionConfig", Message: fmt.Sprintf(
			"kind %q apiVersion %q is not accepted: expected kind %s (apiVersion %s) or ConfigMap (apiVersion v1), or no functionConfig",
			kind, apiVersion, Kind, APIVersion)}}
	}
}

func decodeStrict(rn *yaml.RNode) (*SidecarLifecycle, error) {
	cfg, errs := readConfig(rn.YNode())
	if errs != nil {
		return nil, errs
	}
	return cfg, nil
}

func decodeConfigMap(rn *yaml.RNode) (*SidecarLifecycle, error) {
	cfg, errs := readConfigMap(rn.YNode())
	if errs != nil {
		return nil, errs
	}
	cfg.fromConfigMap = true
	return cfg, nil
}
