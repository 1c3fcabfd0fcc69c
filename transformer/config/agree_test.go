package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// everyField sets every field of the description once, with values Load
// accepts; each probe handler has its own sidecar, as Validate allows one,
// and ifAbsent is on a preset that takes each of its values.
const everyField = `apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
kind: SidecarLifecycle
metadata:
  name: every-field
  generateName: every-
  namespace: config
  selfLink: /apis/x
  uid: abc-123
  resourceVersion: "7"
  generation: 2
  creationTimestamp: 2024-05-06T07:08:09Z
  deletionTimestamp: "2024-05-07T07:08:09+02:00"
  deletionGracePeriodSeconds: 30
  labels: {app: web}
  annotations: {note: x}
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: abc-456, controller: true, blockOwnerDeletion: false}
  finalizers: [example.com/keep]
  managedFields:
  - {manager: kubectl, operation: Apply, apiVersion: v1, time: 2024-05-06T07:08:09Z, fieldsType: FieldsV1, fieldsV1: {f:metadata: {}}, subresource: status}
spec:
  kubernetesVersion: "1.31"
  mode: auto
  action: validate
  targets:
    include:
    - {group: apps, version: v1, kind: Deployment, name: web-*, namespace: prod, labelSelector: app=web, annotationSelector: team=x}
    exclude:
    - {group: batch, version: v1, kind: Job, name: migrate, namespace: jobs, labelSelector: "!canary", annotationSelector: skip}
  sidecars:
  - name: cloud-sql-proxy
    preset: cloud-sql-proxy
    waitForReady: {command: [/cloud-sql-proxy, wait]}
    startupProbe: {exec: {command: [/ready]}, initialDelaySeconds: 1, timeoutSeconds: 2, periodSeconds: 3, successThreshold: 1, failureThreshold: 4, terminationGracePeriodSeconds: 5}
    waitBeforeExit: 10s
    sleepCommand: [/bin/sleep]
    healthCheck: require
  - name: alloydb
    preset: alloydb-auth-proxy
    cloudSQLProxy: {healthCheck: enable}
  - name: http
    preset: linkerd
    ifAbsent: skip
    startupProbe: {httpGet: {path: /ready, port: 8080, host: localhost, scheme: HTTP, httpHeaders: [{name: X-Probe, value: "1"}]}}
  - name: tcp
    startupProbe: {tcpSocket: {port: admin, host: localhost}}
  - name: grpc
    startupProbe: {grpc: {port: 9090, service: health}}
  app: {drainDelay: 5s}
  terminationGracePeriod: {policy: warn, margin: 10s}
  existingHooks: replace
  rolloutOnChange: true
  podSpecPaths:
  - {group: example.com, version: v1, kind: Widget, path: spec/pod}
  catalog:
    recognise: true
    entries:
    - name: acme-proxy
      title: Acme proxy
      mesh: true
      sources: {acme: {repository: acme/proxy, version: v1.2.3}}
      containers: [{name: acme-proxy, source: acme deploy/sidecar.yaml}]
      images: [{pattern: "**/acme/proxy", source: acme Dockerfile}]
      initContainers: [{name: acme-init, source: acme deploy/init.yaml}]
      ready:
        endpoint:
          path: /ready
          paths: [/live]
          port: 9000
          on: true
          address: 127.0.0.1
          source: acme cmd/main.go
          switch:
            flags: pflag
            boolFlags: [health]
            env: {prefix: ACME, since: "1.0.0", source: acme cmd/main.go}
            on: {flag: health, env: ACME_HEALTH, since: "1.0", source: acme cmd/main.go}
            address: {flag: health-address, env: ACME_HEALTH_ADDRESS, since: "1.1.0", source: acme cmd/main.go}
            reachable: 0.0.0.0
            port: {flag: health-port, env: ACME_HEALTH_PORT, since: v1.0.0, source: acme cmd/main.go}
            configFile: config
            as: the Acme operator
            source: acme cmd/main.go
        wait: {command: [acme, wait], portFlag: health-port, addressFlag: health-address, since: "1.2.0", source: acme cmd/wait.go}
        startupProbe:
          probe:
            httpGet: {path: /ready, port: 9000, host: localhost, scheme: HTTP, httpHeaders: [{name: X-Probe, value: "1"}]}
            initialDelaySeconds: 1
            timeoutSeconds: 2
            periodSeconds: 3
            successThreshold: 1
            failureThreshold: 4
            terminationGracePeriodSeconds: 5
          source: acme deploy/sidecar.yaml
        variants:
        - name: the v0 proxy
          images: [{pattern: "**/acme/proxy-v0", source: acme Dockerfile}]
          programs: [{name: acme0, source: acme Dockerfile}]
          endpoint:
            path: /ready
            paths: [/live]
            port: 8000
            on: false
            address: localhost
            source: acme v0/main.go
            switch:
              flags: goflag
              boolFlags: [health, verbose]
              env: {prefix: ACME0, since: "0.5.0", source: acme v0/main.go}
              on: {flag: health, env: ACME0_HEALTH, since: "0.1.0", source: acme v0/main.go}
              address: {flag: health_address, env: ACME0_HEALTH_ADDRESS, since: "0.2.0", source: acme v0/main.go}
              reachable: "::"
              port: {flag: health_port, env: ACME0_HEALTH_PORT, since: "0.1.0", source: acme v0/main.go}
              configFile: config_file
              as: the Acme operator
              source: acme v0/main.go
          wait: {command: [acme0, wait], portFlag: port, addressFlag: address, since: "0.3.0", source: acme v0/wait.go}
          startupProbe:
            probe:
              httpGet: {path: /ready, port: 8000, host: localhost, scheme: HTTP, httpHeaders: [{name: X-Probe, value: "1"}]}
              initialDelaySeconds: 1
              timeoutSeconds: 2
              periodSeconds: 3
              successThreshold: 1
              failureThreshold: 4
              terminationGracePeriodSeconds: 5
            source: acme v0/main.go
      image: {shell: true, sleep: [/bin/sleep], shellTags: [-alpine], noShellTags: [-distroless], source: acme Dockerfile}
      exit:
        sigterm: drains for its drain time
        delays:
        - {annotation: acme.dev/config, field: drain, default: 5s, format: duration, source: acme cmd/main.go}
        - {env: ACME_DRAIN, default: "5", format: seconds, source: acme cmd/main.go}
        - {env: ACME_EXIT_WHEN_IDLE, format: boolean, minimum: 5s, source: acme cmd/main.go}
        noSleep: set ACME_DRAIN
        nativePreStop:
          command: [acme, drain, --port=9001]
          argAnnotation: {annotation: acme.dev/port, prefix: --port=}
          source: acme deploy/native.yaml
        source: acme cmd/main.go
      injector:
        enabled: [{annotation: acme.dev/inject, value: "true", namespace: true, source: acme webhook/inject.go}, {label: acme.dev/inject, field: x, value: "y", unlessLabel: acme.dev/held}]
        disabled: [{label: acme.dev/inject, value: "false", source: acme webhook/inject.go}, {annotation: acme.dev/inject, field: x, value: "n", namespace: true, unlessLabel: acme.dev/held}]
        optOuts: [{annotation: acme.dev/config, field: hold, value: "false", source: acme webhook/inject.go}, {label: acme.dev/hold, value: "n", namespace: false, unlessLabel: acme.dev/held}]
        native: {keys: [acme.dev/native], boolean: true, default: {kubernetes: "1.29", version: "2.0"}, noStartupProbe: true, source: acme webhook/native.go}
        annotate: istio
        annotations:
          ordered: [{key: acme.dev/config, field: hold, value: "true"}]
          exitDelay: {key: acme.dev/config, field: drain, format: seconds}
          native: {key: acme.dev/native, value: "true"}
          source: acme webhook/inject.go
        record: {annotation: acme.dev/status, source: acme webhook/inject.go}
        ordering: acme.dev/hold holds the application until the proxy is ready
        webhooks:
        - name: inject.acme.dev
          namespaceSelector: {matchLabels: {acme.dev/inject: enabled}, matchExpressions: [{key: acme.dev/webhooks, operator: NotIn, values: [disabled]}]}
          objectSelector: {matchLabels: {app: x}, matchExpressions: [{key: acme.dev/inject, operator: In, values: ["true"]}]}
          values: webhook.namespaceSelector
          source: acme chart/webhook.yaml
        refuses:
        - {hostNetwork: true, namespaces: [kube-system], says: the node's network, source: acme webhook/inject.go}
        - {containers: [acme-proxy], images: ["acme/proxy:"], initContainers: [acme-init], initImages: ["acme/init:"], says: a proxy already there}
        - {labels: {acme.dev/build: "*"}, annotations: {acme.dev/status: injected}, says: built or injected already}
        - {invalid: {annotation: acme.dev/inject, values: [enabled, disabled], namespace: true}, namespaces: [acme-system], says: "a value it does not accept, or its own Namespace"}
        source: acme webhook/inject.go
      leaveAlone:
      - {label: acme.dev/control-plane, value: "*", says: acme's own control plane, source: acme deploy/control-plane.yaml}
      - {annotation: acme.dev/templates, value: "*", unless: [sidecar], says: another template}
      - {env: ACME_NO_WAIT, value: "1", says: the proxy must not hold the container back}
    - {name: acme-exec, containers: [{name: acme-exec}], ready: {startupProbe: {probe: {exec: {command: [acme, ready]}}},
        variants: [{name: v0, programs: [{name: acme0}], startupProbe: {probe: {exec: {command: [acme0, ready]}}}}]}}
    - {name: acme-tcp, containers: [{name: acme-tcp}], ready: {startupProbe: {probe: {tcpSocket: {port: 9000, host: localhost}}},
        variants: [{name: v0, programs: [{name: acme0}], startupProbe: {probe: {tcpSocket: {port: 8000, host: localhost}}}}]}}
    - {name: acme-grpc, images: [{pattern: acme/grpc}], ready: {startupProbe: {probe: {grpc: {port: 9000, service: health}}},
        variants: [{name: v0, programs: [{name: acme0}], startupProbe: {probe: {grpc: {port: 8000, service: health}}}}]}}
`

// site is one value of a config: its YAML path, its node, and its shape.
type site struct {
	path string
	// form is the path with [] for list indexes and {} for map keys.
	form  string
	node  *yaml.Node
	shape *shape
}

// sites lists the values of a config that the reader accepts, parents first.
func sites(n *yaml.Node, s *shape, path, form string, out *[]site) {
	*out = append(*out, site{path, form, n, s})
	for i := 0; i+1 < len(n.Content) && n.Kind == yaml.MappingNode; i += 2 {
		key, value := n.Content[i].Value, n.Content[i+1]
		if s.kind == kindObject {
			sites(value, s.byName[key].shape, join(path, key), join(form, key), out)
		} else if s.kind == kindMap {
			sites(value, s.elem, join(path, key), form+"{}", out)
		}
	}
	if s.kind == kindList {
		for i, entry := range n.Content {
			sites(entry, s.elem, fmt.Sprintf("%s[%d]", path, i), form+"[]", out)
		}
	}
}

// forms adds the paths of the description, in the form of site.form.
func forms(s *shape, form string, out map[string]bool) {
	out[form] = true
	switch s.kind {
	case kindObject:
		for _, f := range s.fields {
			forms(f.shape, join(form, f.name), out)
		}
	case kindMap:
		forms(s.elem, form+"{}", out)
	case kindList:
		forms(s.elem, form+"[]", out)
	}
}

// wrongValues are values of each kind that the reader or Validate rejects,
// and so must the schema.
func wrongValues(s *shape) []string {
	switch s.kind {
	case kindString:
		return []string{"[x]", "5", "{}"}
	case kindBool:
		return []string{`"true"`, "yes", "1"}
	case kindInt:
		tooLarge := "100000000000000000000"
		if s.bits < 64 {
			tooLarge = fmt.Sprint(int64(1) << (s.bits - 1))
		}
		return []string{`"1"`, "1.5", tooLarge, "[1]"}
	case kindEnum:
		return []string{"x", "[x]", "5"}
	case kindDuration:
		return []string{"soon", "-5", "1.5", "{}", "[1]"}
	case kindPort:
		return []string{"1.5", "2147483648", "[80]", "true"}
	case kindTime:
		return []string{`"x"`, `"2024-05-06"`, "5", "[x]"}
	case kindList:
		return []string{"x", "5", "{}"}
	}
	return []string{"x", "5", "[x]"} // objects, maps and JSON take a mapping
}

// rightValues are other values of each kind that Load accepts, and so must
// the schema.
func rightValues(s *shape) []string {
	switch s.kind {
	case kindEnum:
		return s.enum
	case kindDuration:
		if s.auto {
			return []string{"30", "1m30s", "auto"}
		}
		return []string{"30", "1m30s"}
	case kindPort:
		return []string{"80", "metrics"}
	case kindTime:
		return []string{"null", "2024-05-06", `"2024-05-06T07:08:09.5Z"`}
	}
	return nil
}

// verdict loads a config and checks its JSON form against the schema.
func verdict(t *testing.T, schema *jsonschema.Schema, text string) (loadErr, schemaErr error) {
	t.Helper()
	_, loadErr = LoadBytes([]byte(text))
	return loadErr, schemaVerdict(t, schema, text)
}

// text writes the tree as YAML.
func text(t *testing.T, root *yaml.Node) string {
	t.Helper()
	s, err := yaml.NewRNode(root).String()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEveryFieldCoversTheDescription: everyField sets every field of the
// description, so the tests below reach every field and every kind.
func TestEveryFieldCoversTheDescription(t *testing.T) {
	want := map[string]bool{}
	forms(configShape, "", want)
	var found []site
	sites(yaml.MustParse(everyField).YNode(), configShape, "", "", &found)
	got := map[string]bool{}
	for _, s := range found {
		got[s.form] = true
	}
	for form := range want {
		if !got[form] {
			t.Errorf("everyField does not set %s", form)
		}
	}
	validated := map[*field]bool{}
	validatedFields(configShape, validated)
	if len(validated) != len(validatedPresence) {
		t.Errorf("%d required fields are left to Validate, validatedPresence lists %d: an entry names no required field", len(validated), len(validatedPresence))
	}
}

// validatedFields adds the fields whose absence Validate reports.
func validatedFields(s *shape, out map[*field]bool) {
	for _, f := range s.fields {
		if f.validated {
			out[f] = true
		}
		validatedFields(f.shape, out)
	}
	if s.elem != nil {
		validatedFields(s.elem, out)
	}
}

// TestLoadAndSchemaAgree: for everyField and for every value of it replaced
// by a wrong or another right value of its kind, an unknown field added to
// each mapping, and each required field taken out, Load and the schema give
// the same verdict, and Load's error names the field. What the reader
// decodes from each accepted config is what encoding/json decodes.
func TestLoadAndSchemaAgree(t *testing.T) {
	schema := compiledSchema(t)
	root := yaml.MustParse(everyField).YNode()
	if loadErr, schemaErr := verdict(t, schema, everyField); loadErr != nil || schemaErr != nil {
		t.Fatalf("everyField: Load says %v, the schema %v", loadErr, schemaErr)
	}
	checkDecodesAsJSON(t, everyField)
	var all []site
	sites(root, configShape, "", "", &all)
	agree := func(s site, change string, accept bool, at string) {
		t.Helper()
		config := text(t, root)
		loadErr, schemaErr := verdict(t, schema, config)
		if (loadErr == nil) != accept || (schemaErr == nil) != accept {
			t.Errorf("%s %s: Load says %v, the schema %v", s.path, change, loadErr, schemaErr)
			return
		}
		if accept {
			checkDecodesAsJSON(t, config)
			return
		}
		if at == "apiVersion" || at == "kind" {
			at = "functionConfig" // they choose how the rest is read
		}
		var errs Errors
		if !errors.As(loadErr, &errs) || !slices.ContainsFunc(errs, func(e FieldError) bool { return e.Path == at }) {
			t.Errorf("%s %s: Load's error %q does not name %s", s.path, change, loadErr, at)
		}
	}
	for _, s := range all {
		saved := *s.node
		for _, v := range wrongValues(s.shape) {
			if s.path == "" {
				break // the config is a mapping: decode says so before the reader
			}
			*s.node = *yaml.MustParse(v).YNode()
			agree(s, "= "+v, false, s.path)
		}
		for _, v := range rightValues(s.shape) {
			*s.node = *yaml.MustParse(v).YNode()
			if s.path == "spec.sidecars[0].preset" && v != "cloud-sql-proxy" {
				// The sidecar's cloudSQLProxy takes this preset only.
				agree(s, "= "+v, false, "spec.sidecars[0].cloudSQLProxy")
				continue
			}
			if s.path == "spec.catalog.entries[0].injector.annotate" && v != string(IstioDialect) {
				// The entry's annotations are keys of a mapping annotation, which the istio dialect alone writes.
				agree(s, "= "+v, false, "spec.catalog.entries[0].injector.annotations.exitDelay.field")
				continue
			}
			agree(s, "= "+v, true, s.path)
		}
		*s.node = saved
		if s.shape.kind != kindObject {
			continue
		}
		s.node.Content = append(s.node.Content, yaml.NewStringRNode("bogus").YNode(), yaml.NewScalarRNode("1").YNode())
		agree(s, "with an unknown field", false, join(s.path, "bogus"))
		s.node.Content = saved.Content
		for i := 0; i+1 < len(saved.Content); i += 2 {
			key := saved.Content[i].Value
			// Schema and decode require apiVersion and kind at the top.
			required := s.shape.byName[key].required || (s.path == "" && (key == "apiVersion" || key == "kind"))
			if required || s.path == "" {
				s.node.Content = append(append([]*yaml.Node{}, saved.Content[:i]...), saved.Content[i+2:]...)
				agree(s, "without "+key, !required, join(s.path, key))
				s.node.Content = saved.Content
			}
		}
	}
}

// TestNullIsTheFieldLeftOut: a field whose value is null is the field left
// out, for Load and the schema alike, as in Kubernetes; a null list entry
// or map value is an error that names it.
func TestNullIsTheFieldLeftOut(t *testing.T) {
	schema := compiledSchema(t)
	root := yaml.MustParse(everyField).YNode()
	var all []site
	sites(root, configShape, "", "", &all)
	parents := map[*yaml.Node]*yaml.Node{}
	for _, s := range all {
		for _, c := range s.node.Content {
			parents[c] = s.node
		}
	}
	for _, s := range all[1:] {
		saved := *s.node
		*s.node = *yaml.MustParse("null").YNode()
		loadErr, schemaErr := verdict(t, schema, text(t, root))
		*s.node = saved
		if strings.HasSuffix(s.form, "[]") || strings.HasSuffix(s.form, "{}") {
			var errs Errors
			if !errors.As(loadErr, &errs) || errs[0].Path != s.path || !strings.HasSuffix(errs[0].Message, "found null") || schemaErr == nil {
				t.Errorf("%s: null: Load says %v, the schema %v; want both to reject it", s.path, loadErr, schemaErr)
			}
			continue
		}
		parent := parents[s.node]
		i := slices.Index(parent.Content, s.node)
		content := parent.Content
		parent.Content = slices.Delete(slices.Clone(content), i-1, i+1)
		leftOutLoad, leftOutSchema := verdict(t, schema, text(t, root))
		parent.Content = content
		if (loadErr == nil) != (leftOutLoad == nil) || (schemaErr == nil) != (leftOutSchema == nil) || (loadErr == nil) != (schemaErr == nil) {
			t.Errorf("%s: null: Load says %v, the schema %v; left out: %v and %v", s.path, loadErr, schemaErr, leftOutLoad, leftOutSchema)
		}
	}
}

// TestLoadAndSchemaOnYAMLForms: YAML's own forms (merge keys, aliases,
// numbers in other bases, YAML 1.1 booleans, unquoted dates) get the same
// verdict from Load and the schema, but for the cases listed with the
// reason they differ.
func TestLoadAndSchemaOnYAMLForms(t *testing.T) {
	schema := compiledSchema(t)
	spec := "apiVersion: " + APIVersion + "\nkind: " + Kind + "\nspec:\n"
	for _, tc := range []struct {
		name, config string
		load, schema bool
	}{
		{"merged wrong type", spec + "  <<: {mode: 3}\n", false, false},
		{"merged unknown field", spec + "  sidecars: [&a {name: a}, {<<: *a, nmae: b}]\n", false, false},
		{"merge, own key wins", spec + "  sidecars: [&a {name: a, waitBeforeExit: soon}, {<<: *a, name: b, waitBeforeExit: 5s}]\n", false, false},
		{"merge, own key wins over a wrong type", spec + "  sidecars: [{<<: {name: 5}, name: b}]\n", true, true},
		{"aliases", spec + "  targets: {include: [&s {kind: Job}, *s], exclude: [*s]}\n", true, true},
		{"duration 1e3", spec + "  app: {drainDelay: 1e3}\n", true, true},
		{"duration 0x1e", spec + "  app: {drainDelay: 0x1e}\n", true, true},
		{"duration 1.5", spec + "  app: {drainDelay: 1.5}\n", false, false},
		{"port 0x50", spec + "  sidecars: [{name: a, startupProbe: {tcpSocket: {port: 0x50}}}]\n", true, true},
		{"quoted integer", spec + "  sidecars: [{name: a, startupProbe: {exec: {command: [x]}, periodSeconds: \"3\"}}]\n", false, false},
		{"YAML 1.1 boolean", spec + "  rolloutOnChange: yes\n", false, false},
		{"unquoted version", spec + "  kubernetesVersion: 1.30\n", false, false},
		{"key by alias", spec + "  sidecars: [{&k name: a}, {*k : b}]\n", true, true},
		// In JSON an unquoted date is a string; the reader asks for quotes
		// rather than read 2024-05-06 as 2024-05-06T00:00:00Z.
		{"unquoted date as a name", spec + "  sidecars: [{name: 2024-05-06}]\n", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loadErr, schemaErr := verdict(t, schema, tc.config)
			if (loadErr == nil) != tc.load || (schemaErr == nil) != tc.schema {
				t.Errorf("Load says %v, the schema %v; want accepted %v and %v", loadErr, schemaErr, tc.load, tc.schema)
			}
		})
	}
}
