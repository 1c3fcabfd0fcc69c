package config

import (
	"reflect"
	"testing"
)

// TestSchemaAndLoadVerdicts: a table of configs, each checked by a JSON
// schema validator against Schema and loaded by Load, which must agree.
func TestSchemaAndLoadVerdicts(t *testing.T) {
	schema := compiledSchema(t)
	head := "apiVersion: " + APIVersion + "\nkind: " + Kind + "\n"
	spec := head + "spec:\n"
	sidecar := func(fields string) string { return spec + "  sidecars: [{name: s, " + fields + "}]\n" }
	probe := func(p string) string { return sidecar("startupProbe: " + p) }
	for _, tc := range []struct {
		name, config string
		accept       bool
	}{
		{"no spec", head, true},
		{"spec: null", head + "spec: null\n", true},
		{"spec: {}", head + "spec: {}\n", true},
		{"metadata: null", head + "metadata: null\n", true},
		{"sidecars: null", spec + "  sidecars: null\n", true},
		{"sidecars: [null]", spec + "  sidecars: [null]\n", false},
		{"label: null", head + "metadata: {labels: {a: null}}\n", false},
		{"spec: []", head + "spec: []\n", false},

		{"preset linkerd", spec + "  sidecars: [{preset: linkerd}]\n", true},
		{"preset none with a name", sidecar("preset: none"), true},
		{"preset none without a name", spec + "  sidecars: [{preset: none}]\n", false},
		{"no preset, no name", spec + "  sidecars: [{waitBeforeExit: 5s}]\n", false},
		{"preset null, no name", spec + "  sidecars: [{preset: null}]\n", false},
		{"empty name with a preset", spec + "  sidecars: [{name: \"\", preset: istio}]\n", true},
		{"unknown preset", spec + "  sidecars: [{preset: acme-proxy}]\n", false},
		{"own entry as a preset", spec + "  catalog: {entries: [{name: acme-proxy, images: [{pattern: acme/proxy}]}]}\n  sidecars: [{preset: acme-proxy}]\n", true},
		{"own entry, recognised with no sidecars", spec + "  catalog: {entries: [{name: acme-proxy, containers: [{name: proxy}]}]}\n", true},
		{"own entry with a built-in name", spec + "  catalog: {entries: [{name: istio, containers: [{name: proxy}]}]}\n", false},
		{"own entry recognising nothing", spec + "  catalog: {entries: [{name: acme-proxy}]}\n", false},
		{"own entry with a tag in its image", spec + "  catalog: {entries: [{name: acme-proxy, images: [{pattern: \"acme/proxy:1\"}]}]}\n", false},
		{"own entry switch with annotation and label", spec + "  catalog: {entries: [{name: a, containers: [{name: p}], injector: {enabled: [{annotation: x, label: x, value: v}]}}]}\n", false},
		{"own entry generic without annotations", spec + "  catalog: {entries: [{name: a, containers: [{name: p}], injector: {annotate: generic}}]}\n", false},
		{"preset in capitals", spec + "  sidecars: [{preset: Linkerd}]\n", false},
		{"empty preset", sidecar(`preset: ""`), false},
		{"preset: {a: b}", sidecar("preset: {a: b}"), false},
		{"mode native", spec + "  mode: native\n", true},
		{"mode auto", spec + "  mode: auto\n", true},
		{"mode sideways", spec + "  mode: sideways\n", false},
		{"empty mode", spec + "  mode: \"\"\n", false},
		{"mode: null", spec + "  mode: null\n", true},
		{"action validate", spec + "  action: validate\n", true},
		{"action: [validate]", spec + "  action: [validate]\n", false},
		{"action dry-run", spec + "  action: dry-run\n", false},
		{"ifAbsent fail", spec + "  sidecars: [{preset: linkerd, ifAbsent: fail}]\n", true},
		{"ifAbsent annotate for istio", spec + "  sidecars: [{preset: istio, ifAbsent: annotate}]\n", true},
		{"ifAbsent annotate for cloud-sql-proxy", spec + "  sidecars: [{preset: cloud-sql-proxy, ifAbsent: annotate}]\n", false},
		{"ifAbsent annotate without a preset", sidecar("ifAbsent: annotate"), false},
		{"cloudSQLProxy for its preset", spec + "  sidecars: [{preset: cloud-sql-proxy, cloudSQLProxy: {healthCheck: require}}]\n", true},
		{"cloudSQLProxy for linkerd", spec + "  sidecars: [{preset: linkerd, cloudSQLProxy: {}}]\n", false},
		{"cloudSQLProxy: null for linkerd", spec + "  sidecars: [{preset: linkerd, cloudSQLProxy: null}]\n", true},
		{"grace policy lower", spec + "  terminationGracePeriod: {policy: lower}\n", false},
		{"existingHooks merge", spec + "  existingHooks: merge\n", false},

		{"version 1.30", spec + "  kubernetesVersion: \"1.30\"\n", true},
		{"version v1.29.3", spec + "  kubernetesVersion: v1.29.3\n", true},
		{"version 1.100", spec + "  kubernetesVersion: \"1.100\"\n", true},
		{"version 2.0", spec + "  kubernetesVersion: \"2.0\"\n", false},
		{"version 1", spec + "  kubernetesVersion: \"1\"\n", false},
		{"version 1.30.1.2", spec + "  kubernetesVersion: 1.30.1.2\n", false},
		{"version with spaces", spec + "  kubernetesVersion: \" 1.30\"\n", false},
		{"version 1.+5", spec + "  kubernetesVersion: 1.+5\n", false},
		{"version with a vendor suffix", spec + "  kubernetesVersion: v1.30.2-eks-1552ad0\n", false},
		{"version with a huge minor", spec + "  kubernetesVersion: \"1.99999999999999999999\"\n", false},
		{"empty version", spec + "  kubernetesVersion: \"\"\n", false},
		{"unquoted version", spec + "  kubernetesVersion: 1.30\n", false},

		{"port 1", probe("{httpGet: {port: 1}}"), true},
		{"port 65535", probe("{tcpSocket: {port: 65535}}"), true},
		{"port 0", probe("{httpGet: {port: 0}}"), false},
		{"port -1", probe("{httpGet: {port: -1}}"), false},
		{"port 65536", probe("{tcpSocket: {port: 65536}}"), false},
		{"port absent", probe("{httpGet: {path: /}}"), false},
		{"port name", probe("{httpGet: {port: admin-http}}"), true},
		{"port name of 15", probe("{httpGet: {port: abcdefghijklmno}}"), true},
		{"port name of 16", probe("{httpGet: {port: abcdefghijklmnop}}"), false},
		{"port name in capitals", probe("{httpGet: {port: HTTP}}"), false},
		{"port name of digits", probe(`{httpGet: {port: "8080"}}`), false},
		{"port name with a double hyphen", probe("{tcpSocket: {port: a--b}}"), false},
		{"port name with a trailing hyphen", probe("{tcpSocket: {port: http-}}"), false},
		{"empty port name", probe(`{tcpSocket: {port: ""}}`), false},
		{"grpc port 9090", probe("{grpc: {port: 9090}}"), true},
		{"grpc port 0", probe("{grpc: {port: 0}}"), false},
		{"grpc port 70000", probe("{grpc: {port: 70000}}"), false},
		{"grpc port name", probe("{grpc: {port: grpc}}"), false},
		{"probe timings", probe("{exec: {command: [x]}, initialDelaySeconds: 0, periodSeconds: 1, successThreshold: 1, terminationGracePeriodSeconds: 1}"), true},
		{"negative period", probe("{exec: {command: [x]}, periodSeconds: -1}"), false},
		{"successThreshold 2", probe("{exec: {command: [x]}, successThreshold: 2}"), false},
		{"terminationGracePeriodSeconds 0", probe("{exec: {command: [x]}, terminationGracePeriodSeconds: 0}"), false},
		{"empty probe", probe("{}"), true},

		{"waitForReady command", sidecar("waitForReady: {command: [/bin/wait, --timeout=1m]}"), true},
		{"empty waitForReady command", sidecar("waitForReady: {command: []}"), false},
		{"waitForReady without command", sidecar("waitForReady: {}"), false},
		{"waitForReady: null", sidecar("waitForReady: null"), true},
		{"probe exec command", probe("{exec: {command: [/ready]}}"), true},
		{"empty probe exec command", probe("{exec: {command: []}}"), false},
		{"probe exec without command", probe("{exec: {}}"), false},
		{"sleepCommand", sidecar("sleepCommand: [/bin/sleep]"), true},
		{"empty sleepCommand", sidecar("sleepCommand: []"), false},
		{"sleepCommand with an empty argument", sidecar(`sleepCommand: [/bin/sleep, ""]`), false},
		{"command entry null", sidecar("waitForReady: {command: [null]}"), false},

		{"duration 30s", sidecar("waitBeforeExit: 30s"), true},
		{"duration auto", sidecar("waitBeforeExit: auto"), true},
		{"duration 86400", spec + "  terminationGracePeriod: {margin: 86400}\n", true},
		{"duration 86401", spec + "  app: {drainDelay: 86401}\n", false},
		{"duration -5", spec + "  app: {drainDelay: -5}\n", false},
		{"empty duration", spec + "  app: {drainDelay: \"\"}\n", false},
		{"drainDelay auto", spec + "  app: {drainDelay: auto}\n", false},

		{"podSpecPath", spec + "  podSpecPaths: [{kind: W, path: spec/pod}]\n", true},
		{"podSpecPath without a kind", spec + "  podSpecPaths: [{path: spec/pod}]\n", false},
		{"podSpecPath with a null path", spec + "  podSpecPaths: [{kind: W, path: null}]\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loadErr, schemaErr := verdict(t, schema, tc.config)
			if (loadErr == nil) != tc.accept || (schemaErr == nil) != tc.accept {
				t.Errorf("Load says %v, the schema %v; want accepted %v", loadErr, schemaErr, tc.accept)
			}
		})
	}
}

// TestSchemaLeavesToLoad: the rules the schema does not say, which
// docs/configuration.md lists: Load rejects each of these configs, which
// the schema accepts.
func TestSchemaLeavesToLoad(t *testing.T) {
	schema := compiledSchema(t)
	spec := "apiVersion: " + APIVersion + "\nkind: " + Kind + "\nspec:\n"
	for name, config := range map[string]string{
		"native mode below 1.29":               "  mode: native\n  kubernetesVersion: \"1.28\"\n",
		"an exit delay without a sleep":        "  kubernetesVersion: \"1.29\"\n  sidecars: [{preset: cloud-sql-proxy, waitBeforeExit: 5s}]\n",
		"a duration string longer than 24h":    "  app: {drainDelay: 25h}\n",
		"a delay plus the margin beyond 24h":   "  app: {drainDelay: 23h}\n  terminationGracePeriod: {margin: 2h}\n",
		"a sidecar named twice":                "  sidecars: [{name: a}, {name: a}]\n",
		"a glob that does not compile":         "  targets: {include: [{name: \"[\"}]}\n",
		"a label selector that does not parse": "  targets: {include: [{labelSelector: \"a in (b\"}]}\n",
		"a probe with two handlers":            "  sidecars: [{name: a, startupProbe: {exec: {command: [x]}, tcpSocket: {port: 80}}}]\n",
		"a built-in kind at another path":      "  podSpecPaths: [{group: apps, kind: Deployment, path: spec/pod}]\n",
		"a pod spec path of slashes":           "  podSpecPaths: [{kind: W, path: /}]\n",
	} {
		t.Run(name, func(t *testing.T) {
			loadErr, schemaErr := verdict(t, schema, spec+config)
			if loadErr == nil || schemaErr != nil {
				t.Errorf("Load says %v, the schema %v; want Load alone to reject it", loadErr, schemaErr)
			}
		})
	}
}

// TestRuleKeysNameFields: every key of valueShapes and validatedPresence
// names a field of the config's types, so that none is a typo that leaves
// its field unchecked.
func TestRuleKeysNameFields(t *testing.T) {
	fields := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice || rt.Kind() == reflect.Map {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || seen[rt] {
			return
		}
		seen[rt] = true
		for i := range rt.NumField() {
			fields[rt.Name()+"."+rt.Field(i).Name] = true
			walk(rt.Field(i).Type)
		}
	}
	walk(reflect.TypeFor[SidecarLifecycle]())
	for key := range valueShapes {
		if !fields[key] {
			t.Errorf("valueShapes: %s is no field of the config", key)
		}
	}
	for key := range validatedPresence {
		if !fields[key] {
			t.Errorf("validatedPresence: %s is no field of the config", key)
		}
	}
}
