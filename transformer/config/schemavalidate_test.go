package config

import (
	"fmt"
	"math"
	"regexp"
)

// validateSchema checks doc, a config's JSON form, against the subset of
// JSON schema that Schema writes, as a JSON schema validator would; at is
// the path of doc in messages.
func validateSchema(s map[string]any, doc any, at string) error {
	if c, ok := s["const"]; ok && c != doc {
		return fmt.Errorf("%s: %v is not %v", at, doc, c)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for _, alt := range anyOf {
			if validateSchema(alt.(map[string]any), doc, at) == nil {
				return nil
			}
		}
		return fmt.Errorf("%s: %v matches no alternative", at, doc)
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == doc
		}
		if !found {
			return fmt.Errorf("%s: %v not in %v", at, doc, enum)
		}
	}
	switch s["type"] {
	case "object":
		m, ok := doc.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", at)
		}
		props, _ := s["properties"].(map[string]any)
		required, _ := s["required"].([]any)
		for _, k := range required {
			if _, ok := m[k.(string)]; !ok {
				return fmt.Errorf("%s.%s: required", at, k)
			}
		}
		for k, v := range m {
			ps, known := props[k]
			if !known {
				ps = s["additionalProperties"]
			}
			if ps == false {
				return fmt.Errorf("%s.%s: unknown field", at, k)
			}
			if ps, ok := ps.(map[string]any); ok {
				if err := validateSchema(ps, v, at+"."+k); err != nil {
					return err
				}
			}
		}
	case "array":
		l, ok := doc.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", at)
		}
		for i, v := range l {
			if err := validateSchema(s["items"].(map[string]any), v, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		str, ok := doc.(string)
		if !ok {
			return fmt.Errorf("%s: not a string", at)
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %s", at, str, p)
		}
	case "boolean":
		if _, ok := doc.(bool); !ok {
			return fmt.Errorf("%s: not a boolean", at)
		}
	case "integer":
		f, ok := doc.(float64)
		if !ok || f != math.Trunc(f) {
			return fmt.Errorf("%s: not an integer", at)
		}
		if lo, ok := s["minimum"].(float64); ok && f < lo {
			return fmt.Errorf("%s: %v is below %v", at, f, lo)
		}
		if hi, ok := s["maximum"].(float64); ok && f > hi {
			return fmt.Errorf("%s: %v is above %v", at, f, hi)
		}
	case "null":
		if doc != nil {
			return fmt.Errorf("%s: not null", at)
		}
	}
	return nil
}
