package manifestcheck

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// closeObjects makes a CRD's schema refuse unknown fields: every object schema
// with properties and no rule of its own for other keys gets
// additionalProperties: false. The API server's strict field validation does
// the same, except under x-kubernetes-preserve-unknown-fields, which
// CassandraDatacenter's spec has: there it keeps a misspelt key and the
// operator ignores it. A key of ours the schema does not declare is a typo, so
// those objects are closed too.
func closeObjects(n any) {
	switch v := n.(type) {
	case map[string]any:
		_, hasProps := v["properties"]
		_, hasAdd := v["additionalProperties"]
		if hasProps && !hasAdd {
			v["additionalProperties"] = false
		}
		for _, c := range v {
			closeObjects(c)
		}
	case []any:
		for _, c := range v {
			closeObjects(c)
		}
	}
}

func compileCRD(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	closeObjects(doc)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(file, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return s
}

func validateCRD(t *testing.T, schemaFile string, obj []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(obj))
	if err != nil {
		return err
	}
	return compileCRD(t, schemaFile).Validate(inst)
}

// The schemas must refuse what the API server would: a misspelt field deep in
// the pod template, a wrong type, an unknown top-level spec key.
func TestCRDSchemasRefuseBadObjects(t *testing.T) {
	good := map[string]any{
		"apiVersion": "cassandra.datastax.com/v1beta1", "kind": "CassandraDatacenter",
		"metadata": map[string]any{"name": "dc1"},
		"spec": map[string]any{
			"clusterName": "c1", "storageConfig": map[string]any{"cassandraDataVolumeClaimSpec": map[string]any{}}, "serverType": "cassandra", "serverVersion": "5.0.2", "size": 3,
			"podTemplateSpec": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "partmon", "livenessProbe": map[string]any{"httpGet": map[string]any{"path": "/healthz", "port": "partmon-metrics"}}},
			}}},
		},
	}
	for _, tc := range []struct {
		name   string
		mutate func(spec map[string]any)
		ok     bool
	}{
		{"as written", func(map[string]any) {}, true},
		{"unknown spec key", func(s map[string]any) { s["sise"] = 3 }, false},
		{"size a string", func(s map[string]any) { s["size"] = "three" }, false},
		{"misspelt probe field", func(s map[string]any) {
			c := s["podTemplateSpec"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			c["livenessProbe"].(map[string]any)["httpGet"].(map[string]any)["paht"] = "/x"
		}, false},
	} {
		obj := cloneJSON(t, good)
		tc.mutate(obj["spec"].(map[string]any))
		j, _ := json.Marshal(obj)
		err := validateCRD(t, crdSchemas["CassandraDatacenter"], j)
		if (err == nil) != tc.ok {
			t.Errorf("%s: valid=%v, want %v (%v)", tc.name, err == nil, tc.ok, err)
		}
	}
}

func cloneJSON(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(j, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
