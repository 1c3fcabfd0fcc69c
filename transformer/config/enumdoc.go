package config

import (
	"reflect"
	"strings"
)

// valuesDoc is what the schema adds to the doc comment of a field with a
// fixed set of values: the values, from the field's shape or the catalog,
// and the default, from what Default writes. It is empty for other fields.
func valuesDoc(t reflect.Type, f reflect.StructField, s *shape) string {
	switch {
	case t == reflect.TypeFor[Sidecar]() && f.Name == "Preset":
		names := append(builtinPresetNames(), "an entry of the config's own")
		return " One of: " + strings.Join(names, ", ") + "; default " + defaultedSidecar("").Preset + "."
	case s.kind == kindEnum:
		return " One of: " + strings.Join(s.enum, ", ") + defaultDoc(t, f) + "."
	}
	return ""
}

// defaultDoc is "; default <value>" for a field Default fills in: for a
// sidecar's field, the value for each preset, "for the others" being the
// value for a sidecar with no preset.
func defaultDoc(t reflect.Type, f reflect.StructField) string {
	if t != reflect.TypeFor[Sidecar]() {
		v, ok := defaultedStructs()[t]
		if !ok || v.FieldByIndex(f.Index).String() == "" {
			return ""
		}
		return "; default " + v.FieldByIndex(f.Index).String()
	}
	byValue := map[string][]string{}
	var order []string
	for _, name := range builtinPresetNames() {
		v := reflect.ValueOf(defaultedSidecar(name)).FieldByIndex(f.Index).String()
		if _, seen := byValue[v]; !seen {
			order = append(order, v)
		}
		byValue[v] = append(byValue[v], name)
	}
	others := reflect.ValueOf(defaultedSidecar("")).FieldByIndex(f.Index).String()
	var parts []string
	for _, v := range order {
		if v != others {
			parts = append(parts, valueOrNone(v)+" for "+strings.Join(byValue[v], ", "))
		}
	}
	if len(parts) == 0 {
		return "; default " + valueOrNone(others)
	}
	return "; default " + strings.Join(parts, "; ") + "; " + valueOrNone(others) + " for the others"
}

// valueOrNone is a default's value, "unset" when Default leaves it empty.
func valueOrNone(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}

// defaultedSidecar is a sidecar with only its preset given, as Default
// fills it in.
func defaultedSidecar(name string) Sidecar {
	sc := Sidecar{Preset: name}
	(&Spec{}).defaultSidecar(&sc)
	return sc
}

// defaultedStructs are the structs of an empty config as Default fills it
// in, by type, reached through struct fields only.
func defaultedStructs() map[reflect.Type]reflect.Value {
	var c SidecarLifecycle
	c.Default()
	out := map[reflect.Type]reflect.Value{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		out[v.Type()] = v
		for i := range v.NumField() {
			if fv := v.Field(i); fv.Kind() == reflect.Struct && v.Type().Field(i).IsExported() {
				walk(fv)
			}
		}
	}
	walk(reflect.ValueOf(c))
	return out
}
